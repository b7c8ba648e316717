package dev.chorus.node.averaging;

import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.aggregation.Outbound;
import java.util.ArrayList;
import java.util.List;

/**
 * How the engine counts its exchanges against the node's window and each peer's slots: by the streams they take. A
 * pull, or a push of a whole model, takes a slot of its own. Pushes to one peer handed over together share one when
 * the transport carries them on one stream ({@link ExchangeTransport#maxBatch}), as long as their values add up to no
 * more than one model's: a slot then stands for at most one model's bytes on one stream, whatever it carries (ten
 * fragments of a tenth of the model take the slot one model would).
 */
final class ExchangeSlots {

    private ExchangeSlots() {}

    /**
     * {@code out} in slots, in order: each push joins the last slot opened in this list for its peer when that slot
     * holds pushes only, fewer than {@code maxBatch} of them, and room for its values within {@code budget}; anything
     * else opens a slot.
     */
    static List<List<Outbound>> group(List<Outbound> out, int maxBatch, int budget) {
        List<List<Outbound>> slots = new ArrayList<>();
        for (Outbound o : out) {
            List<Outbound> open = maxBatch > 1 ? joinable(slots, o, maxBatch, budget) : null;
            if (open != null) {
                open.add(o);
            } else {
                List<Outbound> slot = new ArrayList<>();
                slot.add(o);
                slots.add(slot);
            }
        }
        return slots;
    }

    /** The slots {@code peer}'s exchanges in {@code pending}, and {@code next} if it is not null, take. */
    static int slotsFor(String peer, List<Outbound> pending, Outbound next, int maxBatch, int budget) {
        List<Outbound> all = new ArrayList<>(pending.size() + 1);
        for (Outbound o : pending) {
            if (o.recipient().equals(peer)) {
                all.add(o);
            }
        }
        if (next != null) {
            all.add(next);
        }
        return group(all, maxBatch, budget).size();
    }

    /** Whether {@code next} would open a slot of its own after {@code pending}. */
    static boolean opensSlot(Outbound next, List<Outbound> pending, int maxBatch, int budget) {
        String peer = next.recipient();
        return slotsFor(peer, pending, next, maxBatch, budget) > slotsFor(peer, pending, null, maxBatch, budget);
    }

    private static List<Outbound> joinable(List<List<Outbound>> slots, Outbound o, int maxBatch, int budget) {
        if (!(o.message() instanceof ModelUpdate u)) {
            return null;
        }
        for (int i = slots.size() - 1; i >= 0; i--) {
            List<Outbound> slot = slots.get(i);
            if (!slot.getFirst().recipient().equals(o.recipient())) {
                continue;
            }
            if (slot.size() >= maxBatch || !(slot.getFirst().message() instanceof ModelUpdate)) {
                return null;
            }
            long values = u.values().length;
            for (Outbound member : slot) {
                values += ((ModelUpdate) member.message()).values().length;
            }
            return values <= budget ? slot : null;
        }
        return null;
    }
}
