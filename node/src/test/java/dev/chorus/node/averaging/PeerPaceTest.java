package dev.chorus.node.averaging;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PeerPaceTest {

    private static final long MS = 1_000_000;

    private static List<String> peers(int n) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add("p" + i);
        }
        return out;
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5})
    void peersFarSlowerThanTheMedianAreOfferedOneRoundInTen(long seed) {
        PeerPace pace = new PeerPace();
        List<String> peers = peers(10);
        for (int i = 0; i < 10; i++) {
            pace.record(peers.get(i), (i < 2 ? 500 : 40) * MS); // p0 and p1 behind slow links
        }
        SplittableRandom random = new SplittableRandom(seed);
        Map<String, Integer> offered = new HashMap<>();
        int rounds = 5000;
        for (int r = 0; r < rounds; r++) {
            for (String p : pace.choose(peers, random)) {
                offered.merge(p, 1, Integer::sum);
            }
        }
        for (int i = 2; i < 10; i++) {
            assertThat(offered.get("p" + i)).as("fast peer p" + i).isEqualTo(rounds);
        }
        for (int i = 0; i < 2; i++) {
            assertThat(offered.get("p" + i) / (double) rounds)
                    .as("slow peer p" + i)
                    .isBetween(0.07, 0.13);
        }
    }

    @Test
    void everyPeerIsOfferedUntilEnoughAreMeasured() {
        PeerPace pace = new PeerPace();
        List<String> peers = peers(6);
        pace.record("p0", 10_000 * MS);
        pace.record("p1", 10 * MS);
        SplittableRandom random = new SplittableRandom(1);
        assertThat(pace.choose(peers, random)).isEqualTo(peers);
        pace.record("p2", 10 * MS);
        RandomGenerator quarter = () -> Long.MAX_VALUE / 2; // nextDouble() = 0.25: a slow peer is not kept
        assertThat(pace.choose(peers, quarter))
                .as("unmeasured peers are offered; p0 is 1000x the median")
                .containsExactly("p1", "p2", "p3", "p4", "p5");
    }

    /** A node of a consortium of four has three peers: one behind a slow link is left out once all are measured. */
    @Test
    void threePeersAreEnoughToLeaveASlowOneOut() {
        PeerPace pace = new PeerPace();
        List<String> peers = peers(3);
        pace.record("p0", 10 * MS);
        pace.record("p1", 12 * MS);
        pace.record("p2", 5_000 * MS);
        RandomGenerator quarter = () -> Long.MAX_VALUE / 2;
        assertThat(pace.choose(peers, quarter)).containsExactly("p0", "p1");
    }

    @Test
    void whenEveryPeerIsSlowNoneIsLeftOut() {
        // A node behind a slow link measures every peer alike: relative to the median, nobody is slow.
        PeerPace pace = new PeerPace();
        List<String> peers = peers(8);
        for (int i = 0; i < 8; i++) {
            pace.record(peers.get(i), (900 + 20 * i) * MS);
        }
        assertThat(pace.choose(peers, new SplittableRandom(3))).isEqualTo(peers);
    }

    @Test
    void theMeanFollowsRecentExchanges() {
        PeerPace pace = new PeerPace();
        pace.record("p0", 1000 * MS);
        assertThat(pace.seconds("p0")).isEqualTo(1.0);
        for (int i = 0; i < 30; i++) {
            pace.record("p0", 10 * MS);
        }
        assertThat(pace.seconds("p0")).isBetween(0.01, 0.011);
        assertThat(pace.seconds("unknown")).isNaN();
    }

    @Test
    void neverOffersNothing() {
        PeerPace pace = new PeerPace();
        List<String> peers = peers(4);
        for (String p : peers) {
            pace.record(p, 10 * MS);
        }
        assertThat(pace.choose(List.of(), new SplittableRandom(1))).isEmpty();
        assertThat(pace.choose(peers, new SplittableRandom(1))).isEqualTo(peers);
    }

    @Test
    void aPeerFarSlowerThanTheMedianIsReportedSlowOnceThreeAreMeasured() {
        PeerPace pace = new PeerPace();
        List<String> peers = List.of("a", "b", "c");
        pace.record("a", 10_000_000);
        pace.record("c", 4_000_000_000L);
        assertThat(pace.slow("c", peers)).as("two measured peers say nothing").isFalse();
        pace.record("b", 12_000_000);
        assertThat(pace.slow("c", peers)).isTrue();
        assertThat(pace.slow("a", peers)).isFalse();
        assertThat(pace.slow("d", peers)).as("unmeasured").isFalse();
        assertThat(pace.seconds("c")).isEqualTo(4.0);
    }
}
