package dev.chorus.node.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.aggregation.DeliveryFailure;
import java.io.IOException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/** How the protocol's errors count for a strategy, as the engine learns it through the transport. */
class ModelExchangeFailureKindTest {

    @Test
    void aTimeoutOfTheJdkOrOfTheProtocolIsTimedOut() {
        assertThat(ModelExchange.failureKindOf(new TimeoutException())).isEqualTo(DeliveryFailure.Kind.TIMED_OUT);
        assertThat(ModelExchange.failureKindOf(new ExchangeException(ErrorCode.TIMEOUT, "slow")))
                .isEqualTo(DeliveryFailure.Kind.TIMED_OUT);
        assertThat(ModelExchange.failureKindOf(new ExchangeException(ErrorCode.TIMEOUT, "slow", true)))
                .isEqualTo(DeliveryFailure.Kind.TIMED_OUT);
    }

    @Test
    void anErrorFrameFromThePeerOrABusyRefusalHereIsRefused() {
        assertThat(ModelExchange.failureKindOf(new ExchangeException(ErrorCode.WRONG_ARCHITECTURE, "no", true)))
                .isEqualTo(DeliveryFailure.Kind.REFUSED);
        assertThat(ModelExchange.failureKindOf(ExchangeException.refusedHere(ErrorCode.BUSY, "slots taken")))
                .isEqualTo(DeliveryFailure.Kind.REFUSED);
    }

    @Test
    void anythingElseIsUnreachable() {
        assertThat(ModelExchange.failureKindOf(new ExchangeException(ErrorCode.MALFORMED, "cut short")))
                .isEqualTo(DeliveryFailure.Kind.UNREACHABLE);
        assertThat(ModelExchange.failureKindOf(new IOException("connection reset")))
                .isEqualTo(DeliveryFailure.Kind.UNREACHABLE);
    }
}
