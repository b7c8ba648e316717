package dev.chorus.gossip.pubsub;

import dev.chorus.gossip.identity.PeerId;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;

/**
 * IWANT follow-up tracking (gossipsub-v1.1.md, "Spam Protection Measures"): for each IHAVE answered
 * with an IWANT, one random requested id is remembered with a deadline; if the message has not arrived
 * (from anyone) by then, the advertiser broke its promise and takes a P7 penalty.
 */
final class GossipPromises {
    private final Map<MessageId, Map<PeerId, Long>> promises = new HashMap<>();

    void add(PeerId peer, List<MessageId> ids, long deadline, RandomGenerator random) {
        if (ids.isEmpty()) {
            return;
        }
        MessageId id = ids.get(random.nextInt(ids.size()));
        promises.computeIfAbsent(id, k -> new HashMap<>()).putIfAbsent(peer, deadline);
    }

    /** The message arrived (valid or not): every promise for it is kept. */
    void delivered(MessageId id) {
        promises.remove(id);
    }

    /** Removes expired promises and counts them per peer. */
    Map<PeerId, Integer> broken(long now) {
        Map<PeerId, Integer> out = new HashMap<>();
        Iterator<Map<PeerId, Long>> it = promises.values().iterator();
        while (it.hasNext()) {
            Map<PeerId, Long> m = it.next();
            Iterator<Map.Entry<PeerId, Long>> pit = m.entrySet().iterator();
            while (pit.hasNext()) {
                Map.Entry<PeerId, Long> e = pit.next();
                if (e.getValue() < now) {
                    out.merge(e.getKey(), 1, Integer::sum);
                    pit.remove();
                }
            }
            if (m.isEmpty()) {
                it.remove();
            }
        }
        return out;
    }

    int size() {
        return promises.size();
    }
}
