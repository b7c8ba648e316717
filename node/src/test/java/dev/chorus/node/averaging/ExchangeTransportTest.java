package dev.chorus.node.averaging;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.aggregation.DeliveryFailure;
import dev.chorus.aggregation.ModelUpdate;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

class ExchangeTransportTest {

    /** A transport that overrides none of the defaults. */
    private static final ExchangeTransport PLAIN = new ExchangeTransport() {
        @Override
        public List<String> peers() {
            return List.of();
        }

        @Override
        public CompletableFuture<ModelUpdate> pull(String peer, ModelUpdate offer) {
            return new CompletableFuture<>();
        }

        @Override
        public CompletableFuture<Void> push(String peer, ModelUpdate update) {
            return new CompletableFuture<>();
        }
    };

    @Test
    void theCauseIsFoundInsideTheFuturesWrappers() {
        IOException io = new IOException("reset");
        assertThat(ExchangeTransport.cause(new CompletionException(new ExecutionException(io))))
                .isSameAs(io);
        assertThat(ExchangeTransport.cause(io)).isSameAs(io);
        CompletionException bare = new CompletionException("no cause", null);
        assertThat(ExchangeTransport.cause(bare)).isSameAs(bare);
    }

    @Test
    void byDefaultOnlyTheJdksTimeoutIsTimedOutAndNothingIsCounted() {
        assertThat(PLAIN.failureKind(new TimeoutException())).isEqualTo(DeliveryFailure.Kind.TIMED_OUT);
        assertThat(PLAIN.failureKind(new IOException("reset"))).isEqualTo(DeliveryFailure.Kind.UNREACHABLE);
        assertThat(PLAIN.bytesSent()).isZero();
        assertThat(PLAIN.bytesReceived()).isZero();
    }
}
