package dev.chorus.node.secagg;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/** What one node's secure group rounds did, as a member and as a relay; read from any thread. */
public final class SecAggCounters {

    /**
     * Why a frame was refused. Only {@link #MALFORMED} is the sender's fault; the others happen between honest nodes
     * (a frame that crossed a round's end, a roster seen differently for a moment, a lost connection), so an operator
     * reads them apart.
     */
    public enum Refusal {
        /** Bytes that do not decode, or over the largest frame: held against the sender. */
        MALFORMED("malformed"),
        /** Well formed but for a round or phase this node is not in any more (or not yet): late or early. */
        OUT_OF_TURN("out-of-turn"),
        /** Well formed but not this node's to take: a group it does not relay by its plan, a window out of range. */
        MISDIRECTED("misdirected"),
        /** The stream ended before its frame did: the connection was lost or the sender reset it. */
        LOST("lost"),
        /** From a peer banned for repeated faults: reset unread. */
        BANNED("banned");

        private final String id;

        Refusal(String id) {
            this.id = id;
        }

        /** The name in the API and the metrics. */
        public String id() {
            return id;
        }
    }

    final AtomicLong offers = new AtomicLong();
    final AtomicLong tooFewPeers = new AtomicLong();
    final AtomicLong unanswered = new AtomicLong();
    final AtomicLong joined = new AtomicLong();
    final AtomicLong memberCompleted = new AtomicLong();
    final AtomicLong memberAbandoned = new AtomicLong();
    final AtomicLong injectedDropouts = new AtomicLong();
    final AtomicLong relayed = new AtomicLong();
    final AtomicLong relayCancelled = new AtomicLong();
    final AtomicLong lateOffers = new AtomicLong();
    final AtomicLong relayCompleted = new AtomicLong();
    final AtomicLong relayAbandoned = new AtomicLong();
    final AtomicLong dropoutsRecovered = new AtomicLong();
    final AtomicLong relayMillis = new AtomicLong();
    final AtomicLong relayDeclines = new AtomicLong();
    volatile boolean relaying;
    final AtomicLong bytesSentAsMember = new AtomicLong();
    final AtomicLong bytesSentAsRelay = new AtomicLong();
    final AtomicLong bytesReceived = new AtomicLong();
    private final Map<Refusal, AtomicLong> refused = new EnumMap<>(Refusal.class);
    final AtomicLong sendFailures = new AtomicLong();

    SecAggCounters() {
        for (Refusal r : Refusal.values()) {
            refused.put(r, new AtomicLong());
        }
    }

    void countRefused(Refusal why) {
        refused.get(why).incrementAndGet();
    }

    /** Offers this node made to a relay. */
    public long offers() {
        return offers.get();
    }

    /** Offers not made because this node's group would have had fewer than three members. */
    public long tooFewPeers() {
        return tooFewPeers.get();
    }

    /** Offers that no round followed: the relay cancelled the round (too few offers) or never answered. */
    public long unanswered() {
        return unanswered.get();
    }

    /** Rounds this node started as a member. */
    public long joined() {
        return joined.get();
    }

    /** Rounds that gave this node the group's sum. */
    public long memberCompleted() {
        return memberCompleted.get();
    }

    /** Rounds this node joined that ended without a sum for it. */
    public long memberAbandoned() {
        return memberAbandoned.get();
    }

    /** Rounds this node left on purpose (an experiment's injected dropout). */
    public long injectedDropouts() {
        return injectedDropouts.get();
    }

    /** Rounds this node started as the relay. */
    public long relayed() {
        return relayed.get();
    }

    /** Rounds this node was to relay that did not start (fewer than three offers). */
    public long relayCancelled() {
        return relayCancelled.get();
    }

    /** Offers this node received as a relay after their round had started, and answered with a cancel. */
    public long lateOffers() {
        return lateOffers.get();
    }

    /** Relayed rounds that ended with a sum. */
    public long relayCompleted() {
        return relayCompleted.get();
    }

    /** Relayed rounds abandoned (fewer than t members in a phase, or a failed check). */
    public long relayAbandoned() {
        return relayAbandoned.get();
    }

    /** Members of completed relayed rounds whose input did not reach the sum and whose masks were removed. */
    public long dropoutsRecovered() {
        return dropoutsRecovered.get();
    }

    /** Times this node, set to {@code auto}, declined the relay's role after relaying slower than its peers. */
    public long relayDeclines() {
        return relayDeclines.get();
    }

    /** Whether this node takes its turn as a relay now. */
    public boolean relaying() {
        return relaying;
    }

    /** The time from START to the sum or the abort, summed over the rounds this node relayed, in milliseconds. */
    public long relayMillis() {
        return relayMillis.get();
    }

    /** Bytes of the frames this node sent as a member (offers and round messages). */
    public long bytesSentAsMember() {
        return bytesSentAsMember.get();
    }

    /** Bytes of the frames this node sent as a relay. */
    public long bytesSentAsRelay() {
        return bytesSentAsRelay.get();
    }

    /** Bytes of the frames this node received. */
    public long bytesReceived() {
        return bytesReceived.get();
    }

    /** Frames refused, for any {@link Refusal reason}. */
    public long refused() {
        long n = 0;
        for (AtomicLong c : refused.values()) {
            n += c.get();
        }
        return n;
    }

    /** Frames refused for {@code why}. */
    public long refused(Refusal why) {
        return refused.get(why).get();
    }

    /** Frames that could not be sent (the peer unreachable or its stream refused). */
    public long sendFailures() {
        return sendFailures.get();
    }
}
