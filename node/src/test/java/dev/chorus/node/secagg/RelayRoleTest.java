package dev.chorus.node.secagg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** When a node set to {@code averaging.secure_relay: auto} declines the relay's role, and when it takes it again. */
class RelayRoleTest {

    private long now = 1_000_000;

    /** Rounds relayed by others, each {@code millis} long. */
    private void others(RelayRole role, int count, long millis) {
        for (int i = 0; i < count; i++) {
            now += millis;
            assertThat(role.roundEnded(millis, false, now)).isEmpty();
        }
    }

    /** A round this node relayed, {@code millis} long, ending now. */
    private Optional<RelayRole.Change> mine(RelayRole role, long millis) {
        now += millis;
        return role.roundEnded(millis, true, now);
    }

    /** Rounds of others take 400 ms in these tests: 1000 is slow (over twice), 3000 grossly so (over 4 times). */
    private static final long SLOW = 1000;

    private static final long GROSS = 3000;

    @Test
    void twoRelayedRoundsSlowerThanTwiceTheOthersMedianDeclineTheRole() {
        RelayRole role = new RelayRole(RelayRole.Setting.AUTO);
        assertThat(role.relays()).isTrue();
        others(role, 6, 400);
        assertThat(mine(role, SLOW)).isEmpty();
        Optional<RelayRole.Change> change = mine(role, SLOW + 100);
        assertThat(change).isPresent();
        assertThat(change.get().relays()).isFalse();
        assertThat(change.get().reason())
                .startsWith(
                        "the last 2 rounds this node relayed took 1000 and 1100 ms against a median of 400 ms for the"
                                + " last 6 that others relayed")
                .contains("declining the relay's role for 60 s")
                .endsWith("(averaging.secure_relay: auto)");
        assertThat(role.relays()).isFalse();
    }

    @Test
    void oneRoundOverFourTimesTheOthersMedianDeclinesAtOnce() {
        RelayRole role = new RelayRole(RelayRole.Setting.AUTO);
        others(role, 6, 400);
        Optional<RelayRole.Change> change = mine(role, GROSS);
        assertThat(change).isPresent();
        assertThat(change.get().reason())
                .startsWith("the last round this node relayed took 3000 ms against a median of 400");
        assertThat(role.relays()).isFalse();
    }

    @Test
    void oneGrossButShortRoundDeclinesNothing() {
        RelayRole role = new RelayRole(RelayRole.Setting.AUTO);
        others(role, 6, 20);
        assertThat(mine(role, 20 + RelayRole.GROSS_EXTRA_MILLIS - 1)).isEmpty();
        assertThat(role.relays()).isTrue();
    }

    @Test
    void oneSlowRoundBetweenFastOnesDeclinesNothing() {
        RelayRole role = new RelayRole(RelayRole.Setting.AUTO);
        others(role, 6, 400);
        for (int i = 0; i < 10; i++) {
            assertThat(mine(role, i % 2 == 0 ? 1500 : 420)).isEmpty();
        }
        assertThat(role.relays()).isTrue();
    }

    @Test
    void roundsUnderTwiceTheMedianDeclineNothing() {
        RelayRole role = new RelayRole(RelayRole.Setting.AUTO);
        others(role, 6, 400);
        for (int i = 0; i < 10; i++) {
            assertThat(mine(role, 800)).isEmpty();
        }
        assertThat(role.relays()).isTrue();
    }

    @Test
    void roundsTooShortToMatterDeclineNothingHoweverManyTimesSlower() {
        RelayRole role = new RelayRole(RelayRole.Setting.AUTO);
        others(role, 6, 10);
        for (int i = 0; i < 10; i++) {
            assertThat(mine(role, 10 + RelayRole.MIN_EXTRA_MILLIS - 1)).isEmpty();
        }
        assertThat(role.relays()).isTrue();
        assertThat(mine(role, 10 + RelayRole.MIN_EXTRA_MILLIS + 1)).isEmpty();
        assertThat(mine(role, 10 + RelayRole.MIN_EXTRA_MILLIS + 1)).isPresent();
    }

    @Test
    void nothingIsDecidedBeforeEnoughRoundsRelayedByOthers() {
        RelayRole role = new RelayRole(RelayRole.Setting.AUTO);
        others(role, RelayRole.MIN_OTHERS - 1, 400);
        for (int i = 0; i < 5; i++) {
            assertThat(mine(role, 5000)).isEmpty();
        }
        others(role, 1, 400);
        assertThat(mine(role, 5000)).isPresent();
    }

    @Test
    void theMedianIsOverTheLatestRoundsRelayedByOthers() {
        RelayRole role = new RelayRole(RelayRole.Setting.AUTO);
        // Slow rounds long ago, fast ones since: only the latest OTHERS_KEPT count.
        others(role, 50, 10_000);
        others(role, RelayRole.OTHERS_KEPT, 400);
        mine(role, SLOW);
        assertThat(mine(role, SLOW)).isPresent();
    }

    @Test
    void aDeclineEndsAfterItsTimeAndEachFailedRetryDoublesTheNextUpToTheLongest() {
        RelayRole role = new RelayRole(RelayRole.Setting.AUTO);
        others(role, 6, 400);
        long expected = RelayRole.FIRST_DECLINE_MILLIS;
        for (int decline = 0; decline < 8; decline++) {
            mine(role, SLOW);
            assertThat(mine(role, SLOW)).as("decline %d", decline).isPresent();
            long declinedAt = now;
            assertThat(role.tick(declinedAt + expected - 1)).isEmpty();
            assertThat(role.relays()).isFalse();
            now = declinedAt + expected;
            Optional<RelayRole.Change> retry = role.tick(now);
            assertThat(retry).isPresent();
            assertThat(retry.get().relays()).isTrue();
            assertThat(role.relays()).isTrue();
            expected = Math.min(RelayRole.LONGEST_DECLINE_MILLIS, expected * 2);
        }
        assertThat(expected).isEqualTo(RelayRole.LONGEST_DECLINE_MILLIS);
    }

    @Test
    void aRetryThatPassesStartsTheNextDeclineAtTheFirstLengthAgain() {
        RelayRole role = new RelayRole(RelayRole.Setting.AUTO);
        others(role, 6, 400);
        mine(role, SLOW);
        mine(role, SLOW);
        now += RelayRole.FIRST_DECLINE_MILLIS;
        role.tick(now);
        mine(role, SLOW);
        mine(role, SLOW); // still slow: the next decline lasts twice as long
        now += 2 * RelayRole.FIRST_DECLINE_MILLIS;
        assertThat(role.tick(now)).isPresent();
        mine(role, 450);
        mine(role, 450); // the link is as fast as the others' now
        mine(role, SLOW);
        Optional<RelayRole.Change> change = mine(role, SLOW);
        assertThat(change).isPresent();
        assertThat(change.get().reason()).contains((RelayRole.FIRST_DECLINE_MILLIS / 1000) + " s");
    }

    @Test
    void roundsItRelaysWhileDecliningCountForNothing() {
        RelayRole role = new RelayRole(RelayRole.Setting.AUTO);
        others(role, 6, 400);
        assertThat(mine(role, GROSS)).isPresent();
        // A group none of whose members relays falls to one of them anyway.
        assertThat(mine(role, 400)).isEmpty();
        assertThat(mine(role, 400)).isEmpty();
        now += RelayRole.FIRST_DECLINE_MILLIS;
        role.tick(now);
        mine(role, SLOW);
        assertThat(mine(role, SLOW)).as("a second failed try: declined again").isPresent();
    }

    @ParameterizedTest
    @ValueSource(strings = {"ALWAYS", "NEVER"})
    void aFixedSettingNeverChanges(String name) {
        RelayRole.Setting setting = RelayRole.Setting.valueOf(name);
        RelayRole role = new RelayRole(setting);
        boolean relays = setting == RelayRole.Setting.ALWAYS;
        assertThat(role.relays()).isEqualTo(relays);
        others(role, 10, 400);
        for (int i = 0; i < 10; i++) {
            assertThat(mine(role, 10_000)).isEmpty();
            assertThat(role.tick(now + RelayRole.LONGEST_DECLINE_MILLIS)).isEmpty();
        }
        assertThat(role.relays()).isEqualTo(relays);
    }

    /**
     * Seeded: a node whose rounds, relayed by itself or by others, come from one distribution (times spread by up to
     * a factor of 1.6 around one mean) never declines.
     */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void aNodeAsFastAsItsPeersNeverDeclines(long seed) {
        Random random = new Random(seed);
        RelayRole role = new RelayRole(RelayRole.Setting.AUTO);
        long mean = 50 + random.nextInt(2000);
        for (int i = 0; i < 2000; i++) {
            long millis = Math.round(mean * (0.8 + 0.5 * random.nextDouble()));
            now += millis;
            assertThat(role.roundEnded(millis, random.nextInt(8) == 0, now)).isEmpty();
            role.tick(now);
        }
        assertThat(role.relays()).isTrue();
    }

    @Test
    void theSettingReadsAsNodeYamlWritesIt() {
        assertThat(RelayRole.Setting.parse("auto")).isEqualTo(RelayRole.Setting.AUTO);
        assertThat(RelayRole.Setting.parse("true")).isEqualTo(RelayRole.Setting.ALWAYS);
        assertThat(RelayRole.Setting.parse(" False ")).isEqualTo(RelayRole.Setting.NEVER);
        for (RelayRole.Setting s : RelayRole.Setting.values()) {
            assertThat(RelayRole.Setting.parse(s.word())).isEqualTo(s);
        }
        assertThatThrownBy(() -> RelayRole.Setting.parse("sometimes"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("auto, true or false")
                .hasMessageContaining("sometimes");
    }
}
