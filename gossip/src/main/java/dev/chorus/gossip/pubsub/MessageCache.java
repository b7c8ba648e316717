package dev.chorus.gossip.pubsub;

import dev.chorus.gossip.identity.PeerId;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The gossipsub message cache ({@code mcache}, gossipsub-v1.0.md): validated messages of the last
 * {@code mcache_len} heartbeat windows, of which the newest {@code mcache_gossip} are advertised in
 * IHAVE. It also counts, per message and peer, how often the message was served by IWANT, so that a
 * peer gets each message at most {@code gossip_retransmission} times. At most {@code capacity} messages
 * are held; beyond that new messages are still routed but not cached.
 */
public final class MessageCache {
    private static final class Entry {
        final PubsubMessage message;
        final Map<PeerId, Integer> served = new HashMap<>();

        Entry(PubsubMessage message) {
            this.message = message;
        }
    }

    private record Key(MessageId id, String topic) {}

    private final int historyLength;
    private final int gossipLength;
    private final int capacity;
    private final Map<MessageId, Entry> messages = new HashMap<>();
    private final ArrayDeque<List<Key>> windows = new ArrayDeque<>();

    /**
     * @param historyLength {@code mcache_len}, windows kept (default 5)
     * @param gossipLength {@code mcache_gossip}, windows advertised (default 3)
     */
    public MessageCache(int historyLength, int gossipLength, int capacity) {
        if (gossipLength > historyLength || gossipLength < 0 || historyLength < 1 || capacity < 1) {
            throw new IllegalArgumentException("need 0 <= mcache_gossip <= mcache_len, mcache_len >= 1");
        }
        this.historyLength = historyLength;
        this.gossipLength = gossipLength;
        this.capacity = capacity;
        windows.addFirst(new ArrayList<>());
    }

    /** Caches a validated message in the current window; false when already cached or full. */
    public boolean put(MessageId id, PubsubMessage message) {
        if (messages.containsKey(id) || messages.size() >= capacity) {
            return false;
        }
        messages.put(id, new Entry(message));
        windows.peekFirst().add(new Key(id, message.topic()));
        return true;
    }

    public PubsubMessage get(MessageId id) {
        Entry e = messages.get(id);
        return e == null ? null : e.message;
    }

    public boolean contains(MessageId id) {
        return messages.containsKey(id);
    }

    /**
     * The message for an IWANT from {@code peer}, counting the transmission; null when not cached or
     * already served {@code maxTransmissions} times to that peer.
     */
    public PubsubMessage getForPeer(MessageId id, PeerId peer, int maxTransmissions) {
        Entry e = messages.get(id);
        if (e == null) {
            return null;
        }
        int n = e.served.merge(peer, 1, Integer::sum);
        return n > maxTransmissions ? null : e.message;
    }

    /** Ids of {@code topic} in the newest {@code mcache_gossip} windows, newest first. */
    public List<MessageId> gossipIds(String topic) {
        Set<MessageId> out = new LinkedHashSet<>();
        int i = 0;
        for (List<Key> w : windows) {
            if (i++ >= gossipLength) {
                break;
            }
            for (int j = w.size() - 1; j >= 0; j--) {
                Key k = w.get(j);
                if (k.topic().equals(topic)) {
                    out.add(k.id());
                }
            }
        }
        return new ArrayList<>(out);
    }

    /** Starts a new window at a heartbeat, dropping the oldest beyond {@code mcache_len}. */
    public void shift() {
        windows.addFirst(new ArrayList<>());
        while (windows.size() > historyLength) {
            for (Key k : windows.removeLast()) {
                messages.remove(k.id());
            }
        }
    }

    public int size() {
        return messages.size();
    }
}
