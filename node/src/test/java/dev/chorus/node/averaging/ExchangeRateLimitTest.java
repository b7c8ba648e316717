package dev.chorus.node.averaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ExchangeRateLimitTest {

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    private void advanceMillis(long ms) {
        nanos.addAndGet(ms * 1_000_000L);
    }

    @Test
    void aBucketHoldsOneSecondsWorthAndRefillsAtTheRate() {
        ExchangeRateLimit limit = new ExchangeRateLimit(4, nanos::get);
        for (int i = 0; i < 4; i++) {
            assertThat(limit.available(List.of("a")))
                    .as("token %d of the burst", i)
                    .containsExactly("a");
            limit.take("a");
        }
        assertThat(limit.available(List.of("a", "b")))
                .as("a spent its second; b untouched")
                .containsExactly("b");
        advanceMillis(249);
        assertThat(limit.available(List.of("a"))).isEmpty();
        advanceMillis(1);
        assertThat(limit.available(List.of("a"))).containsExactly("a");
        advanceMillis(60_000);
        for (int i = 0; i < 4; i++) {
            limit.take("a");
        }
        assertThat(limit.available(List.of("a")))
                .as("a long idle time refills one second's worth only")
                .isEmpty();
    }

    @Test
    void aRateBelowOnePerSecondAllowsOneExchangeThenWaitsItsInterval() {
        ExchangeRateLimit limit = new ExchangeRateLimit(0.5, nanos::get);
        limit.take("a");
        advanceMillis(1_999);
        assertThat(limit.available(List.of("a"))).isEmpty();
        advanceMillis(1);
        assertThat(limit.available(List.of("a"))).containsExactly("a");
    }

    @Test
    void takingWithoutATokenIsADebtPaidBackBeforeTheNextExchange() {
        ExchangeRateLimit limit = new ExchangeRateLimit(1, nanos::get);
        limit.take("a");
        limit.take("a");
        limit.take("a"); // beyond one second's debt: not counted
        advanceMillis(1_999);
        assertThat(limit.available(List.of("a"))).isEmpty();
        advanceMillis(1);
        assertThat(limit.available(List.of("a"))).containsExactly("a");
    }

    @Test
    void zeroBoundsNothingAndNegativeOrInfiniteRatesAreRefused() {
        ExchangeRateLimit none = new ExchangeRateLimit(0, nanos::get);
        for (int i = 0; i < 1000; i++) {
            none.take("a");
        }
        assertThat(none.available(List.of("a"))).containsExactly("a");
        assertThat(none.bounded()).isFalse();
        assertThatThrownBy(() -> new ExchangeRateLimit(-1, nanos::get)).hasMessageContaining("-1");
        assertThatThrownBy(() -> new ExchangeRateLimit(Double.NaN, nanos::get)).hasMessageContaining("NaN");
        assertThatThrownBy(() -> new ExchangeRateLimit(Double.POSITIVE_INFINITY, nanos::get))
                .hasMessageContaining("Infinity");
    }

    @Test
    void dropsTheBucketsOfPeersIdleLongEnoughToBeFullAgain() {
        ExchangeRateLimit limit = new ExchangeRateLimit(1, nanos::get);
        // At a rate of 1 a second and a capacity of 1, an emptied bucket fills in 2 s: the sweep interval.
        for (int round = 0; round < 100; round++) {
            for (int j = 0; j < 10; j++) {
                limit.take("p" + round + "-" + j);
            }
            advanceMillis(500);
            limit.available(List.of());
            assertThat(limit.trackedPeers())
                    .as("round %d: only the peers of the last 2.5 s", round)
                    .isLessThanOrEqualTo(10 * 5);
        }
        advanceMillis(1_000);
        limit.take("debtor");
        limit.take("debtor");
        advanceMillis(1_000);
        limit.available(List.of());
        assertThat(limit.trackedPeers())
                .as("the full ones dropped, the one in debt kept")
                .isEqualTo(1);
        advanceMillis(999);
        assertThat(limit.available(List.of("debtor")))
                .as("still paying back its debt")
                .isEmpty();
        advanceMillis(1);
        assertThat(limit.available(List.of("debtor"))).containsExactly("debtor");
        advanceMillis(2_000);
        limit.available(List.of());
        assertThat(limit.trackedPeers()).isZero();
    }

    @Test
    void forgetsPeersNoLongerConnected() {
        ExchangeRateLimit limit = new ExchangeRateLimit(1, nanos::get);
        limit.take("a");
        limit.take("b");
        limit.retain(List.of("b"));
        assertThat(limit.available(List.of("a", "b")))
                .as("a starts afresh, b keeps its debt")
                .containsExactly("a");
    }
}
