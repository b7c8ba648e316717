package dev.chorus.gossip.pubsub;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Ids of messages seen within {@code seen_ttl}, for de-duplication. Entries expire in insertion order (the
 * TTL is the same for all), and the cache holds at most {@code capacity} ids: beyond that the oldest go
 * first, so a flood of fresh ids costs bounded memory. Times are milliseconds of the router's clock.
 */
public final class SeenCache {
    private final long ttlMillis;
    private final int capacity;
    private final LinkedHashMap<MessageId, Long> expiry = new LinkedHashMap<>();
    private long evictedEarly;

    public SeenCache(long ttlMillis, int capacity) {
        if (ttlMillis <= 0 || capacity <= 0) {
            throw new IllegalArgumentException("seen cache TTL and capacity must be positive");
        }
        this.ttlMillis = ttlMillis;
        this.capacity = capacity;
    }

    /** Records {@code id}; false when it was already seen (and not expired). */
    public boolean add(MessageId id, long now) {
        prune(now);
        if (expiry.containsKey(id)) {
            return false;
        }
        if (expiry.size() >= capacity) {
            Iterator<MessageId> it = expiry.keySet().iterator();
            it.next();
            it.remove();
            evictedEarly++;
        }
        expiry.put(id, now + ttlMillis);
        return true;
    }

    public boolean contains(MessageId id, long now) {
        Long until = expiry.get(id);
        return until != null && until > now;
    }

    /** Drops expired ids. */
    public void prune(long now) {
        Iterator<Map.Entry<MessageId, Long>> it = expiry.entrySet().iterator();
        while (it.hasNext()) {
            if (it.next().getValue() > now) {
                return;
            }
            it.remove();
        }
    }

    public int size() {
        return expiry.size();
    }

    /** Ids dropped before their TTL because the cache was full. */
    public long evictedEarly() {
        return evictedEarly;
    }
}
