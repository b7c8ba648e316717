package dev.chorus.testnet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.node.averaging.AveragingKind;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class StrategyKindTest {

    /** The user-facing names: the node's for its strategies, the testnet's own for the two references. */
    @Test
    void theIdsAreTheNodesNamesAndTheTwoReferences() {
        assertThat(Arrays.stream(StrategyKind.values()).map(StrategyKind::id))
                .containsExactly("async", "fragmented", "fedbuff", "sync", "secure", "alone", "central");
    }

    @Test
    void eachRunsTheNodeStrategyOfItsNameAndTheReferencesNone() {
        assertThat(StrategyKind.ASYNC.averaging()).isEqualTo(AveragingKind.ASYNC);
        assertThat(StrategyKind.FRAGMENTED.averaging()).isEqualTo(AveragingKind.FRAGMENTED);
        assertThat(StrategyKind.FEDBUFF.averaging()).isEqualTo(AveragingKind.FEDBUFF);
        assertThat(StrategyKind.SYNC.averaging()).isEqualTo(AveragingKind.SYNC);
        assertThat(StrategyKind.SECURE.averaging()).isEqualTo(AveragingKind.SECURE);
        assertThat(StrategyKind.ALONE.averaging()).isEqualTo(AveragingKind.NONE);
        assertThat(StrategyKind.CENTRAL.averaging()).isEqualTo(AveragingKind.NONE);
    }

    @ParameterizedTest
    @EnumSource(StrategyKind.class)
    void everyIdParsesBackAndOnlyTheReferencesExchangeNothing(StrategyKind kind) {
        assertThat(StrategyKind.parse(kind.id())).isSameAs(kind);
        assertThat(StrategyKind.parse(" " + kind.id().toUpperCase() + " ")).isSameAs(kind);
        assertThat(kind.exchanges()).isEqualTo(kind != StrategyKind.ALONE && kind != StrategyKind.CENTRAL);
    }

    /** The node's name for training alone is not a testnet run: the testnet says {@code alone}. */
    @Test
    void anUnknownNameIsRefusedWithTheValidOnes() {
        assertThatThrownBy(() -> StrategyKind.parse("none"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown strategy \"none\"; expected one of async, fragmented, fedbuff, sync, secure,"
                        + " alone, central");
    }
}
