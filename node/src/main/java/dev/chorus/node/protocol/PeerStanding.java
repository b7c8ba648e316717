package dev.chorus.node.protocol;

import java.time.Duration;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How far each peer has misbehaved on the model exchange protocol. Every payload of a peer that this node refuses
 * for a fault of the peer (malformed frames, a wrong architecture, a body larger than announced, NaN or infinite
 * values, a digest that does not match, a message of the wrong kind) adds a penalty; penalties decay exponentially
 * with {@link Config#halfLife}, so an honest peer with a rare bad frame recovers. A peer whose penalty reaches
 * {@link Config#threshold} is banned for {@link Config#banDuration}: it is not chosen for exchanges, and its streams
 * are reset before a byte of them is read, so its updates never reach the model. Busy, timed-out or unavailable
 * exchanges are not faults and cost nothing. Bounded: at most {@link Config#maxPeers} peers are tracked (the one
 * with the smallest penalty makes room). Any thread.
 */
public final class PeerStanding {

    /**
     * @param threshold the decayed penalty at which a peer is banned
     * @param halfLife how fast penalties decay
     * @param banDuration how long a ban lasts
     * @param maxPeers peers tracked at most
     */
    public record Config(double threshold, Duration halfLife, Duration banDuration, int maxPeers) {
        public Config {
            if (!(threshold > 0) || halfLife.isNegative() || halfLife.isZero() || banDuration.isNegative()) {
                throw new IllegalArgumentException("threshold and half-life must be positive, ban not negative");
            }
            if (maxPeers < 1) {
                throw new IllegalArgumentException("maxPeers must be at least 1");
            }
        }

        /** Five faults within a minute or so ban a peer for ten minutes. */
        public static Config defaults() {
            return new Config(5, Duration.ofMinutes(1), Duration.ofMinutes(10), 4096);
        }
    }

    private static final class Entry {
        double penalty;
        long updatedMillis;
        long bannedUntilMillis;
    }

    private final Config config;
    private final InstantSource clock;
    private final Map<String, Entry> peers = new HashMap<>();
    private final AtomicLong bans = new AtomicLong();

    public PeerStanding(Config config, InstantSource clock) {
        this.config = Objects.requireNonNull(config, "config");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** The penalty of a refusal with {@code code}: 0 for what is not the peer's fault. */
    public static double penalty(ErrorCode code) {
        return switch (code) {
            case MALFORMED, UNSUPPORTED_VERSION, WRONG_ARCHITECTURE, TOO_LARGE, UNEXPECTED -> 1;
            case INVALID_VALUES, DIGEST_MISMATCH -> 2;
            case BUSY, UNAVAILABLE, TIMEOUT, INTERNAL -> 0;
        };
    }

    /** Records a fault of {@code peer}; true when this fault banned it. */
    public boolean fault(String peer, ErrorCode code) {
        double p = penalty(code);
        if (p == 0) {
            return false;
        }
        long now = clock.millis();
        synchronized (peers) {
            Entry e = peers.get(peer);
            if (e == null) {
                if (peers.size() >= config.maxPeers()) {
                    evictMildest(now);
                }
                e = new Entry();
                e.updatedMillis = now;
                peers.put(peer, e);
            }
            e.penalty = decayed(e, now) + p;
            e.updatedMillis = now;
            if (e.penalty >= config.threshold() && e.bannedUntilMillis <= now) {
                e.bannedUntilMillis = now + config.banDuration().toMillis();
                e.penalty = 0; // the ban is the sentence; afterwards the peer starts afresh
                bans.incrementAndGet();
                return true;
            }
            return false;
        }
    }

    /** Whether {@code peer} is banned now. */
    public boolean banned(String peer) {
        long now = clock.millis();
        synchronized (peers) {
            Entry e = peers.get(peer);
            return e != null && e.bannedUntilMillis > now;
        }
    }

    /** The peer's current (decayed) penalty; 0 for a peer without faults. */
    public double penalty(String peer) {
        long now = clock.millis();
        synchronized (peers) {
            Entry e = peers.get(peer);
            return e == null ? 0 : decayed(e, now);
        }
    }

    public Config config() {
        return config;
    }

    /** Bans imposed since start. */
    public long bans() {
        return bans.get();
    }

    private double decayed(Entry e, long now) {
        double halfLives = (now - e.updatedMillis) / (double) config.halfLife().toMillis();
        return e.penalty * Math.pow(0.5, Math.max(0, halfLives));
    }

    private void evictMildest(long now) {
        String mildest = null;
        double least = Double.POSITIVE_INFINITY;
        for (Map.Entry<String, Entry> x : peers.entrySet()) {
            Entry e = x.getValue();
            double p = e.bannedUntilMillis > now ? Double.MAX_VALUE : decayed(e, now);
            if (p < least) {
                least = p;
                mildest = x.getKey();
            }
        }
        peers.remove(mildest);
    }
}
