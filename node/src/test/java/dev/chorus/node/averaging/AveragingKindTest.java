package dev.chorus.node.averaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.aggregation.AveragingStrategy;
import dev.chorus.aggregation.async.BufferedAsynchronousAggregation;
import dev.chorus.aggregation.async.FragmentedGossip;
import dev.chorus.aggregation.async.GossipAveraging;
import dev.chorus.aggregation.robust.CoordinateWiseMedian;
import dev.chorus.aggregation.robust.TrimmedMean;
import dev.chorus.aggregation.sync.DeadlineAveraging;
import dev.chorus.aggregation.sync.SynchronousAveraging;
import dev.chorus.aggregation.weighting.UpdateWeighting;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

class AveragingKindTest {

    private static final int DIMENSION = 40;

    private static StrategySettings settings(int fragments, String aggregator) {
        return settings(fragments, aggregator, StrategySettings.Robustness.NONE);
    }

    private static StrategySettings settings(int fragments, String aggregator, StrategySettings.Robustness r) {
        return new StrategySettings(
                UpdateWeighting.uniform(),
                Duration.ofSeconds(7),
                new StrategySettings.Fragmenting(fragments, 3, 11, false),
                new StrategySettings.Buffering(aggregator, 5),
                Set.of("a", "b", "c"),
                r,
                StrategySettings.Screening.off());
    }

    @ParameterizedTest
    @EnumSource(
            value = AveragingKind.class,
            names = {"ASYNC", "FRAGMENTED", "SYNC"})
    void theKindsThatSeeEachModelScreenWhatTheyReceiveWhenTheSettingsSaySo(AveragingKind kind) {
        screensWhenTheSettingsSaySo(kind, StrategySettings.Robustness.NONE);
    }

    @Test
    void syncWithADeadlineScreensWhenTheSettingsSaySo() {
        StrategySettings.Robustness deadline =
                new StrategySettings.Robustness(RobustRule.parse("median"), Duration.ofSeconds(5));
        assertThat(screensWhenTheSettingsSaySo(AveragingKind.SYNC, deadline))
                .isInstanceOf(dev.chorus.aggregation.sync.DeadlineAveraging.class);
    }

    private static AveragingStrategy screensWhenTheSettingsSaySo(
            AveragingKind kind, StrategySettings.Robustness robustness) {
        StrategySettings off = settings(0, null, robustness);
        assertThat(kind.create(off, "a", DIMENSION).screening()).isEmpty();
        StrategySettings clip = new StrategySettings(
                off.weighting(),
                off.exchangeTimeout(),
                off.fragmenting(),
                off.buffering(),
                off.participants(),
                off.robustness(),
                new StrategySettings.Screening(StrategySettings.Screening.Mode.CLIP, 2.5));
        AveragingStrategy screening = kind.create(clip, "a", DIMENSION);
        assertThat(screening.screening())
                .hasValueSatisfying(s -> assertThat(s.config().multiplier()).isEqualTo(2.5));
        return screening;
    }

    @Test
    void theNamesAreThoseOfTheConfigInTheirOrder() {
        assertThat(AveragingKind.configNames())
                .containsExactly("async", "fragmented", "fedbuff", "sync", "secure", "none");
        assertThat(AveragingKind.DEFAULT).isEqualTo(AveragingKind.ASYNC);
    }

    @ParameterizedTest
    @EnumSource(AveragingKind.class)
    void everyNameParsesBackToItsKind(AveragingKind kind) {
        assertThat(AveragingKind.parse(kind.configName())).isSameAs(kind);
        assertThat(AveragingKind.parse(" " + kind.configName().toUpperCase() + " "))
                .isSameAs(kind);
        assertThat(kind).hasToString(kind.configName());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "alone", "central", "gossip", "sync2"})
    void anUnknownNameIsRefusedWithTheValidOnes(String text) {
        assertThatThrownBy(() -> AveragingKind.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown averaging strategy \"" + text
                        + "\"; expected one of async, fragmented, fedbuff, sync, secure, none");
    }

    @Test
    void aMissingNameIsRefused() {
        assertThatThrownBy(() -> AveragingKind.parse(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("expected one of async, fragmented, fedbuff, sync, secure, none");
    }

    @Test
    void onlyNoneExchangesNothing() {
        for (AveragingKind k : AveragingKind.values()) {
            assertThat(k.exchanges()).as(k.configName()).isEqualTo(k != AveragingKind.NONE);
        }
    }

    @Test
    void asyncIsPushPullGossipWithTheSettingsWeightingAndTimeout() {
        AveragingStrategy s = AveragingKind.ASYNC.create(settings(0, "a"), "a", DIMENSION);
        assertThat(s).isInstanceOf(GossipAveraging.class);
        GossipAveraging.Config c = ((GossipAveraging) s).config();
        assertThat(c.mode()).isEqualTo(GossipAveraging.Mode.PUSH_PULL);
        assertThat(c.weighting()).isEqualTo(UpdateWeighting.uniform());
        assertThat(c.exchangeTimeout()).isEqualTo(Duration.ofSeconds(7));
        assertThat(s.exchangesBothWays()).isTrue();
    }

    @Test
    void fragmentedTakesTheCountFanoutSeedAndBalanceSet() {
        AveragingStrategy s = AveragingKind.FRAGMENTED.create(settings(4, "a"), "a", DIMENSION);
        assertThat(s).isInstanceOf(FragmentedGossip.class);
        FragmentedGossip.Config c = ((FragmentedGossip) s).config();
        assertThat(c.fragments()).isEqualTo(4);
        assertThat(c.fanout()).isEqualTo(3);
        assertThat(c.seed()).isEqualTo(11);
        assertThat(c.balanced()).isFalse();
        assertThat(s.fragmentation().orElseThrow().fragmentCount()).isEqualTo(4);
        assertThat(s.fragmentation().orElseThrow().seed()).isEqualTo(11);
    }

    @Test
    void fragmentedWithoutACountTakesTheModelsDefault() {
        AveragingStrategy s = AveragingKind.FRAGMENTED.create(settings(0, "a"), "a", 25_450);
        assertThat(s.fragmentation().orElseThrow().fragmentCount())
                .isEqualTo(FragmentedGossip.defaultFragments(25_450));
    }

    @Test
    void fragmentedRefusesMoreFragmentsThanParameters() {
        assertThatThrownBy(() -> AveragingKind.FRAGMENTED.create(settings(DIMENSION + 1, "a"), "a", DIMENSION))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void fedbuffAggregatesAtTheNamedNodeAndContributesElsewhere() {
        AveragingStrategy at = AveragingKind.FEDBUFF.create(settings(0, "a"), "a", DIMENSION);
        AveragingStrategy elsewhere = AveragingKind.FEDBUFF.create(settings(0, "a"), "b", DIMENSION);
        assertThat(((BufferedAsynchronousAggregation) at).role())
                .isEqualTo(BufferedAsynchronousAggregation.Role.AGGREGATOR);
        assertThat(((BufferedAsynchronousAggregation) elsewhere).role())
                .isEqualTo(BufferedAsynchronousAggregation.Role.CONTRIBUTOR);
        assertThat(((BufferedAsynchronousAggregation) at).config().bufferSize()).isEqualTo(5);
        assertThat(at.versionsComparable()).isTrue();
        assertThat(elsewhere.versionsComparable()).isFalse();
    }

    @Test
    void syncHasTheParticipantsAndABarrier() {
        AveragingStrategy s = AveragingKind.SYNC.create(settings(0, "a"), "b", DIMENSION);
        assertThat(s).isInstanceOf(SynchronousAveraging.class);
        assertThat(((SynchronousAveraging) s).config().participants()).containsExactly("a", "b", "c");
        assertThat(s.barrier()).isPresent();
        assertThat(s.versionsComparable()).isFalse();
    }

    @Test
    void syncRefusesANodeThatIsNotAParticipant() {
        assertThatThrownBy(() -> AveragingKind.SYNC.create(settings(0, "a"), "z", DIMENSION))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void noneBuildsNoStrategy() {
        assertThatThrownBy(() -> AveragingKind.NONE.create(settings(0, "a"), "a", DIMENSION))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("none");
    }

    @Test
    void syncAndFedbuffTakeTheRobustRuleAndOnlyThey() {
        StrategySettings.Robustness median = new StrategySettings.Robustness(RobustRule.parse("median"), Duration.ZERO);
        AveragingStrategy sync = AveragingKind.SYNC.create(settings(0, "a", median), "a", DIMENSION);
        assertThat(((SynchronousAveraging) sync).config().robust()).isInstanceOf(CoordinateWiseMedian.class);
        StrategySettings.Robustness trimmed =
                new StrategySettings.Robustness(RobustRule.parse("trimmed:2"), Duration.ZERO);
        AveragingStrategy fedbuff = AveragingKind.FEDBUFF.create(settings(0, "a", trimmed), "a", DIMENSION);
        assertThat(((BufferedAsynchronousAggregation) fedbuff).config().robust())
                .isInstanceOfSatisfying(
                        TrimmedMean.class, t -> assertThat(t.trimmed()).isEqualTo(2));
        for (AveragingKind k : List.of(AveragingKind.ASYNC, AveragingKind.FRAGMENTED)) {
            assertThat(k.aggregatesSeveral()).isFalse();
            assertThatThrownBy(() -> k.create(settings(0, "a", median), "a", DIMENSION))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("robust rules aggregate several models at once")
                    .hasMessageContaining(k + " merges one at a time");
        }
        assertThat(AveragingKind.SECURE.aggregatesSeveral()).isFalse();
        assertThatThrownBy(() -> AveragingKind.SECURE.create(settings(0, "a", median), "a", DIMENSION))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("the relay learns only the group's sum")
                .hasMessageNotContaining("async");
    }

    @Test
    void aRuleThatNeedsMoreModelsThanARoundHoldsIsRefused() {
        StrategySettings.Robustness krum = new StrategySettings.Robustness(RobustRule.parse("krum:1"), Duration.ZERO);
        assertThatThrownBy(() -> AveragingKind.SYNC.create(settings(0, "a", krum), "a", DIMENSION))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("krum:1 needs n >= 2f + 3 = 5 models per aggregation, but there are 3 participants");
        StrategySettings.Robustness krum2 = new StrategySettings.Robustness(RobustRule.parse("krum:2"), Duration.ZERO);
        assertThatThrownBy(() -> AveragingKind.FEDBUFF.create(settings(0, "a", krum2), "a", DIMENSION))
                .hasMessage("krum:2 needs n >= 2f + 3 = 7 models per aggregation, but the buffer holds 5 deltas");
    }

    @Test
    void syncWithADeadlineClosesRoundsWithTheModelsAtHandAndNoFewerThanTheRuleNeeds() {
        StrategySettings.Robustness r =
                new StrategySettings.Robustness(RobustRule.parse("median"), Duration.ofSeconds(3));
        AveragingStrategy s = AveragingKind.SYNC.create(settings(0, "a", r), "b", DIMENSION);
        DeadlineAveraging.Config c = ((DeadlineAveraging) s).config();
        assertThat(c.participants()).containsExactly("a", "b", "c");
        assertThat(c.roundDeadline()).isEqualTo(Duration.ofSeconds(3));
        assertThat(c.participation()).isEqualTo(1.0);
        assertThat(c.minContributions()).isEqualTo(3);
        assertThat(c.robust()).isInstanceOf(CoordinateWiseMedian.class);
        StrategySettings.Robustness plain = new StrategySettings.Robustness(RobustRule.NONE, Duration.ofSeconds(3));
        DeadlineAveraging mean = (DeadlineAveraging) AveragingKind.SYNC.create(settings(0, "a", plain), "b", DIMENSION);
        assertThat(mean.config().minContributions()).isEqualTo(1);
        assertThat(mean.config().robust()).isNull();
    }
}
