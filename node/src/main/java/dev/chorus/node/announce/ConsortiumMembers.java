package dev.chorus.node.announce;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * What this node has heard from the other members of its consortium: the newest verified announcement of each
 * peer, and when it arrived. Bounded, since peers are remote input: at most {@code capacity} members (the one heard
 * from least recently makes room), entries older than {@code expiry} are dropped, and an announcement that is
 * older than the one held (a replay) or dated more than {@link #MAX_CLOCK_SKEW} ahead of the local clock is
 * ignored and counted. Any thread.
 */
public final class ConsortiumMembers implements Consumer<ModelAnnouncement> {

    /** How far ahead of the local clock an announcement's timestamp may be. */
    public static final Duration MAX_CLOCK_SKEW = Duration.ofMinutes(5);

    /** A member's newest announcement and when this node received it. */
    public record Member(ModelAnnouncement announcement, Instant receivedAt) {}

    private final int capacity;
    private final Duration expiry;
    private final InstantSource clock;
    private final Map<String, Member> members = new HashMap<>();
    private final AtomicLong accepted = new AtomicLong();
    private final AtomicLong ignored = new AtomicLong();

    public ConsortiumMembers(int capacity, Duration expiry, InstantSource clock) {
        if (capacity < 1 || expiry.isNegative() || expiry.isZero()) {
            throw new IllegalArgumentException("capacity " + capacity + ", expiry " + expiry);
        }
        this.capacity = capacity;
        this.expiry = expiry;
        this.clock = clock;
    }

    @Override
    public void accept(ModelAnnouncement a) {
        Instant now = clock.instant();
        if (a.timestampMillis() > now.plus(MAX_CLOCK_SKEW).toEpochMilli()) {
            ignored.incrementAndGet();
            return;
        }
        synchronized (members) {
            Member held = members.get(a.peer());
            if (held != null && held.announcement().timestampMillis() >= a.timestampMillis()) {
                ignored.incrementAndGet();
                return;
            }
            if (held == null) {
                expire(now);
                if (members.size() >= capacity) {
                    members.values().stream()
                            .min(Comparator.comparing(Member::receivedAt))
                            .ifPresent(m -> members.remove(m.announcement().peer()));
                }
            }
            members.put(a.peer(), new Member(a, now));
        }
        accepted.incrementAndGet();
    }

    private void expire(Instant now) {
        Instant cutoff = now.minus(expiry);
        members.values().removeIf(m -> m.receivedAt().isBefore(cutoff));
    }

    /** The members heard from within the expiry, most recently heard first. */
    public List<Member> members() {
        List<Member> out;
        synchronized (members) {
            expire(clock.instant());
            out = new ArrayList<>(members.values());
        }
        out.sort(Comparator.comparing(Member::receivedAt).reversed());
        return out;
    }

    /** The newest announcement of {@code peer}, if heard within the expiry. */
    public Optional<Member> member(String peer) {
        synchronized (members) {
            Member m = members.get(peer);
            if (m == null || m.receivedAt().isBefore(clock.instant().minus(expiry))) {
                return Optional.empty();
            }
            return Optional.of(m);
        }
    }

    public int size() {
        return members().size();
    }

    /** Announcements taken as a member's newest. */
    public long accepted() {
        return accepted.get();
    }

    /** Announcements ignored as replays or as dated in the future. */
    public long ignored() {
        return ignored.get();
    }
}
