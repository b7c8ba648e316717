package dev.chorus.node.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class PeerStandingTest {

    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-06-01T12:00:00Z"));
    private final InstantSource clock = () -> now.get();

    private void advance(Duration d) {
        now.set(now.get().plus(d));
    }

    @Test
    void repeatedFaultsBanAPeerForAWhileAndOnlyFaultsCount() {
        PeerStanding s = new PeerStanding(PeerStanding.Config.defaults(), clock);
        for (int i = 0; i < 100; i++) {
            s.fault("busy", ErrorCode.BUSY);
            s.fault("busy", ErrorCode.TIMEOUT);
            s.fault("busy", ErrorCode.UNAVAILABLE);
        }
        assertThat(s.banned("busy")).isFalse();
        assertThat(s.penalty("busy")).isZero();

        assertThat(s.fault("bad", ErrorCode.INVALID_VALUES)).isFalse();
        assertThat(s.fault("bad", ErrorCode.MALFORMED)).isFalse();
        assertThat(s.fault("bad", ErrorCode.WRONG_ARCHITECTURE)).isFalse();
        assertThat(s.penalty("bad")).isEqualTo(4.0);
        assertThat(s.fault("bad", ErrorCode.TOO_LARGE)).isTrue();
        assertThat(s.banned("bad")).isTrue();
        assertThat(s.bans()).isEqualTo(1);
        advance(Duration.ofMinutes(9));
        assertThat(s.banned("bad")).isTrue();
        advance(Duration.ofMinutes(1));
        assertThat(s.banned("bad")).isFalse();
    }

    @Test
    void penaltiesDecaySoARareFaultNeverBans() {
        PeerStanding s = new PeerStanding(PeerStanding.Config.defaults(), clock);
        for (int i = 0; i < 1000; i++) {
            s.fault("flaky", ErrorCode.DIGEST_MISMATCH); // 2 points every two minutes
            advance(Duration.ofMinutes(2));
        }
        assertThat(s.banned("flaky")).isFalse();
        s.fault("p", ErrorCode.MALFORMED);
        advance(Duration.ofMinutes(1));
        assertThat(s.penalty("p")).isCloseTo(0.5, org.assertj.core.data.Offset.offset(1e-9));
    }

    @Test
    void trackedPeersAreBounded() {
        PeerStanding s =
                new PeerStanding(new PeerStanding.Config(5, Duration.ofMinutes(1), Duration.ofMinutes(10), 3), clock);
        for (int i = 0; i < 5; i++) {
            s.fault("banned", ErrorCode.MALFORMED);
        }
        for (int i = 0; i < 1000; i++) {
            s.fault("p" + i, ErrorCode.MALFORMED);
        }
        // a banned peer is never the one evicted to make room
        assertThat(s.banned("banned")).isTrue();
        assertThat(s.penalty("p999")).isEqualTo(1.0);
        assertThat(s.penalty("p0")).isZero();
    }
}
