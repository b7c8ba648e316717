package dev.chorus.node.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ExchangeLimitsTest {

    private static final Duration THIRTY_SECONDS = Duration.ofSeconds(30);

    @Test
    void eachWitherChangesOnlyItsOwnLimit() {
        ExchangeLimits d = ExchangeLimits.defaults();
        assertEquals(new ExchangeLimits(1 << 24, 16384, 1024, 2, 4, 16, THIRTY_SECONDS), d);

        assertEquals(new ExchangeLimits(7, 16384, 1024, 2, 4, 16, THIRTY_SECONDS), d.withMaxParameters(7));
        assertEquals(new ExchangeLimits(1 << 24, 7, 1024, 2, 4, 16, THIRTY_SECONDS), d.withMaxChunkValues(7));
        assertEquals(new ExchangeLimits(1 << 24, 16384, 1024, 7, 4, 16, THIRTY_SECONDS), d.withMaxConcurrentPerPeer(7));
        assertEquals(new ExchangeLimits(1 << 24, 16384, 1024, 2, 4, 7, THIRTY_SECONDS), d.withMaxQueuedUpdates(7));
        assertEquals(
                new ExchangeLimits(1 << 24, 16384, 1024, 2, 4, 16, Duration.ofSeconds(7)),
                d.withExchangeTimeout(Duration.ofSeconds(7)));
    }

    @Test
    void withersValidateTheResult() {
        ExchangeLimits d = ExchangeLimits.defaults();
        assertEquals(
                "maxQueuedUpdates must lie in [1, 65536], got 0",
                assertThrows(IllegalArgumentException.class, () -> d.withMaxQueuedUpdates(0))
                        .getMessage());
        assertEquals(
                "exchangeTimeout must be positive, got PT0S",
                assertThrows(IllegalArgumentException.class, () -> d.withExchangeTimeout(Duration.ZERO))
                        .getMessage());
    }
}
