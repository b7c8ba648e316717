package dev.chorus.node.secagg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.privacy.secagg.RoundConfig;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RoundDerivationTest {

    private static final SecAggSettings SETTINGS = SecAggSettings.defaults(3);

    private static List<String> members(int n) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(PrivateKey.generate().peerId().toBase58());
        }
        return out;
    }

    /** Uniform weights, a range exponent of 0 (parameters within [-1, 1]), 32-bit words. */
    private static final Terms TERMS = new Terms(0, 0, 32);

    @ParameterizedTest(name = "{0} members")
    @ValueSource(ints = {3, 4, 5, 7, 8, 9, 16, 33, 100})
    void everyGroupSizeGetsAValidGraphAndAThresholdAboveHalfItsDegree(int n) {
        int k = RoundDerivation.degree(n, 0);
        int t = RoundDerivation.threshold(k, 0.6);
        assertThat(k).isBetween(2, n - 1);
        assertThat(2 * t).isGreaterThan(k);
        assertThat(t).isLessThanOrEqualTo(k);
        assertThat(k % 2 == 0 || n % 2 == 0).isTrue();
        RoundConfig config = RoundDerivation.derive(1, "relay", members(n), TERMS, SETTINGS, 10);
        assertThat(config.degree()).isEqualTo(k);
        assertThat(config.threshold()).isEqualTo(t);
    }

    @Test
    void aConfiguredDegreeIsCappedAndEvenedForOddGroups() {
        assertThat(RoundDerivation.degree(5, 7)).isEqualTo(4);
        assertThat(RoundDerivation.degree(9, 5)).isEqualTo(4);
        assertThat(RoundDerivation.degree(10, 5)).isEqualTo(5);
        assertThat(RoundDerivation.threshold(12, 0.6)).isEqualTo(8);
        assertThat(RoundDerivation.threshold(4, 0.6)).isEqualTo(3);
        assertThat(RoundDerivation.threshold(10, 1.0)).isEqualTo(10);
    }

    @Test
    void theRelayAndEveryMemberDeriveTheSameRoundAndAnythingElseGivesAnother() {
        List<String> group = members(6);
        RoundConfig a = RoundDerivation.derive(42, group.get(2), group, TERMS, SETTINGS, 100);
        RoundConfig b = RoundDerivation.derive(42, group.get(2), List.copyOf(group), TERMS, SETTINGS, 100);
        assertThat(b.roundId()).isEqualTo(a.roundId());
        assertThat(b.groupSeed()).isEqualTo(a.groupSeed());
        assertThat(RoundDerivation.derive(43, group.get(2), group, TERMS, SETTINGS, 100)
                        .roundId())
                .isNotEqualTo(a.roundId());
        assertThat(RoundDerivation.derive(42, group.get(3), group, TERMS, SETTINGS, 100)
                        .roundId())
                .isNotEqualTo(a.roundId());
        assertThat(RoundDerivation.derive(42, group.get(2), group.subList(0, 5), TERMS, SETTINGS, 100)
                        .roundId())
                .isNotEqualTo(a.roundId());
        // Another weight scale, or another weighting, is another round: a member told another scale than the others,
        // or weighing otherwise, refuses their messages.
        assertThat(RoundDerivation.derive(42, group.get(2), group, new Terms(1, 0, 32), SETTINGS, 100)
                        .roundId())
                .isNotEqualTo(a.roundId());
        assertThat(RoundDerivation.derive(42, group.get(2), group, TERMS, SETTINGS.withSampleWeighting(false), 100)
                        .roundId())
                .isNotEqualTo(a.roundId());
        // So is another range or another word.
        assertThat(RoundDerivation.derive(42, group.get(2), group, new Terms(0, 1, 32), SETTINGS, 100)
                        .roundId())
                .isNotEqualTo(a.roundId());
        assertThat(RoundDerivation.derive(42, group.get(2), group, new Terms(0, 0, 16), SETTINGS, 100)
                        .roundId())
                .isNotEqualTo(a.roundId());
    }

    @Test
    void theRoundClipsToTheLargerOfTheAskedRangesWithinTheConfiguredOneInTheAskedWords() {
        List<String> group = members(4);
        RoundConfig narrow = RoundDerivation.derive(7, group.get(0), group, new Terms(0, -2, 16), SETTINGS, 10);
        assertThat(narrow.range()).isEqualTo(0.25);
        assertThat(narrow.wordBits()).isEqualTo(16);
        RoundConfig wide = RoundDerivation.derive(7, group.get(0), group, new Terms(0, 30, 32), SETTINGS, 10);
        assertThat(wide.range()).isEqualTo(SETTINGS.range());
        assertThat(wide.wordBits()).isEqualTo(32);
    }

    @Test
    void refusesTooSmallGroupsAndPeersWithoutAnInlineKey() {
        assertThatThrownBy(() -> RoundDerivation.derive(1, "r", members(2), TERMS, SETTINGS, 10))
                .hasMessageContaining("needs 3 members");
        List<String> odd = members(3);
        odd.set(1, "QmYyQSo1c1Ym7orWxLYvCrM2EmxFTANf8wXmmE7DWjhx5N");
        assertThatThrownBy(() -> RoundDerivation.derive(1, "r", odd, TERMS, SETTINGS, 10))
                .hasMessageContaining("no inline Ed25519 key");
    }
}
