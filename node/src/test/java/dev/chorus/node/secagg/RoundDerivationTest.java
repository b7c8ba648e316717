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

    @ParameterizedTest(name = "{0} members")
    @ValueSource(ints = {3, 4, 5, 7, 8, 9, 16, 33, 100})
    void everyGroupSizeGetsAValidGraphAndAThresholdAboveHalfItsDegree(int n) {
        int k = RoundDerivation.degree(n, 0);
        int t = RoundDerivation.threshold(k, 0.6);
        assertThat(k).isBetween(2, n - 1);
        assertThat(2 * t).isGreaterThan(k);
        assertThat(t).isLessThanOrEqualTo(k);
        assertThat(k % 2 == 0 || n % 2 == 0).isTrue();
        RoundConfig config = RoundDerivation.derive(1, "relay", members(n), 0, SETTINGS, 10);
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
        RoundConfig a = RoundDerivation.derive(42, group.get(2), group, 0, SETTINGS, 100);
        RoundConfig b = RoundDerivation.derive(42, group.get(2), List.copyOf(group), 0, SETTINGS, 100);
        assertThat(b.roundId()).isEqualTo(a.roundId());
        assertThat(b.groupSeed()).isEqualTo(a.groupSeed());
        assertThat(RoundDerivation.derive(43, group.get(2), group, 0, SETTINGS, 100)
                        .roundId())
                .isNotEqualTo(a.roundId());
        assertThat(RoundDerivation.derive(42, group.get(3), group, 0, SETTINGS, 100)
                        .roundId())
                .isNotEqualTo(a.roundId());
        assertThat(RoundDerivation.derive(42, group.get(2), group.subList(0, 5), 0, SETTINGS, 100)
                        .roundId())
                .isNotEqualTo(a.roundId());
        // Another weight scale, or another weighting, is another round: a member told another scale than the others,
        // or weighing otherwise, refuses their messages.
        assertThat(RoundDerivation.derive(42, group.get(2), group, 1, SETTINGS, 100)
                        .roundId())
                .isNotEqualTo(a.roundId());
        assertThat(RoundDerivation.derive(42, group.get(2), group, 0, SETTINGS.withSampleWeighting(false), 100)
                        .roundId())
                .isNotEqualTo(a.roundId());
    }

    @Test
    void refusesTooSmallGroupsAndPeersWithoutAnInlineKey() {
        assertThatThrownBy(() -> RoundDerivation.derive(1, "r", members(2), 0, SETTINGS, 10))
                .hasMessageContaining("needs 3 members");
        List<String> odd = members(3);
        odd.set(1, "QmYyQSo1c1Ym7orWxLYvCrM2EmxFTANf8wXmmE7DWjhx5N");
        assertThatThrownBy(() -> RoundDerivation.derive(1, "r", odd, 0, SETTINGS, 10))
                .hasMessageContaining("no inline Ed25519 key");
    }
}
