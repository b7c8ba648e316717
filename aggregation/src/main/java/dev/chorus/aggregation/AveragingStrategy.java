package dev.chorus.aggregation;

import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * One node's side of an averaging algorithm, as a state machine that never blocks.
 *
 * <p>As in Flower's strategies, configuring what to send is separate from aggregating what arrives. The trainer
 * calls {@link #configure} between local steps (every few steps); the strategy merges anything that is due and
 * queues what it wants sent. The transport drains the queue with {@link #pollOutbound()} at its own pace; a
 * strategy may drop queued messages that were not sent in time (a stale snapshot is not worth sending). Arrived
 * messages go to {@link #receive} (then, once all that arrived between two steps is in, to {@link #mergeArrived}),
 * transport failures to {@link #onFailure}. A strategy that stops waiting for an exchange it started says so through
 * {@link #pollAbandoned()}, so that the transport can stop it and free what it holds. Time and randomness are passed
 * in.
 *
 * <p>Implementations are not thread-safe: the caller runs all methods on one thread, or under one lock.
 */
public interface AveragingStrategy {

    /**
     * Called by the trainer between steps: merge what is due into {@code local} and queue what to send now.
     *
     * @param local the local model (merged into in place)
     * @param peers the peers currently connected, without this node
     * @param random the source of peer choices
     * @param clock the current time
     */
    void configure(LocalModel local, List<String> peers, RandomGenerator random, InstantSource clock);

    /** The next message to transmit, or {@code null} when nothing is queued. */
    Outbound pollOutbound();

    /** How many messages are queued. */
    int pendingOutbound();

    /**
     * The next exchange this strategy has stopped waiting for, as the very message it handed out by
     * {@link #pollOutbound()} (compared by identity), or {@code null} when there is none. The caller asks after each
     * call of {@link #configure}, {@link #receive} and {@link #onFailure}; it may then cancel that exchange, and
     * reports no {@link DeliveryFailure} for a cancelled one. A reply that was already on its way may still reach
     * {@link #receive}. A message that was never handed out, or whose exchange has ended, is ignored. Default: none,
     * so every exchange runs until it completes or the transport gives up on it.
     */
    default AveragingMessage pollAbandoned() {
        return null;
    }

    /**
     * When this strategy will stop waiting for the exchange it awaits, in milliseconds of the clock it is given;
     * {@link Long#MAX_VALUE} when it awaits none, or waits as long as the transport does (the default). A caller that
     * holds training back until this node's own exchange completes (a drift bound) waits no longer than this: past
     * it, the strategy gives the exchange up at its next {@link #configure} and starts another.
     */
    default long patienceDeadlineMillis() {
        return Long.MAX_VALUE;
    }

    /**
     * Whether every exchange this strategy starts brings this node a model back (push-pull), so that a node whose
     * peers rarely choose it still mixes through its own exchanges. The transport may then skip peers that answer
     * far more slowly than the others; default false.
     */
    default boolean exchangesBothWays() {
        return false;
    }

    /**
     * Whether every message this strategy sends must reach its recipient for a round to end (a barrier, or an
     * aggregator that waits for contributions), so that a message refused here costs the strategy a retry rather
     * than an exchange it can do without. The node's averaging engine then treats a peer that answers slowly as any
     * other: it does not narrow such a peer's exchanges in flight to one, as it does for gossip strategies, whose
     * next round picks again; default false.
     */
    default boolean awaitsEveryRecipient() {
        return false;
    }

    /**
     * Whether the versions of the updates this strategy receives count the same steps as the local version, so that
     * {@code local.version() - update.version()} is a staleness; default true. False where a version is a round
     * number (synchronous rounds) or counts another node's applied buffers (a FedBuff contributor), so that a caller
     * does not record the difference as staleness.
     */
    default boolean versionsComparable() {
        return true;
    }

    /**
     * Whether this strategy's merges keep the newer of the two versions (as gossip learning keeps the older model's
     * age), so that the local version grows with the fastest pace among the nodes whose models reach this one; the
     * node's averaging engine then reads its pace against the consortium's from it (straggler compensation); default
     * false.
     */
    default boolean keepsTheNewestVersion() {
        return false;
    }

    /**
     * Whether this strategy averages through secure group rounds ({@link GroupRounds}) instead of the model exchange;
     * default false. The node then connects it to its rounds ({@link #attachGroupRounds}) and does not serve the
     * model exchange at all, since the point of such a strategy is that no peer sees the model in the clear.
     */
    default boolean joinsGroupRounds() {
        return false;
    }

    /** Connects a strategy that {@link #joinsGroupRounds} to the node's rounds; the others ignore it. */
    default void attachGroupRounds(GroupRounds rounds) {}

    /**
     * The barrier the trainer waits at between rounds, for a strategy whose participants end each round together;
     * empty (the default) for a strategy that never holds training back.
     */
    default Optional<Barrier> barrier() {
        return Optional.empty();
    }

    /**
     * The seeded fragmentation whose fragments this strategy sends (the very arrays of its indices), so that a
     * transport can name a fragment by its count, seed and number instead of listing its coordinates, and accept
     * only the fragmentations it knows; empty (the default) for a strategy that sends whole models.
     */
    default Optional<ModelFragmentation> fragmentation() {
        return Optional.empty();
    }

    /**
     * The clipping that screens each received model around the local one, so that a node can report what it clipped
     * and whom it excluded; empty (the default) for a strategy that merges what it receives unscreened.
     */
    default Optional<dev.chorus.aggregation.SelfCenteredClipping> screening() {
        return Optional.empty();
    }

    /**
     * Handles an arrived message; may merge into {@code local} in place.
     *
     * @throws InvalidUpdateException if the message does not fit the local model (wrong dimension, duplicate
     *     indices, a version from the future); nothing has been merged then
     */
    Receipt receive(AveragingMessage message, LocalModel local, InstantSource clock);

    /**
     * Handles a message known to answer none of this node's exchanges: a peer's own push, or the model a peer sent
     * with its pull. A transport that returns each reply on the exchange that asked for it calls this for
     * everything else, so that a strategy awaiting a peer's reply does not take that peer's own offer, crossing it,
     * for the reply. A transport that cannot tell replies apart calls {@link #receive} for everything. Default:
     * {@link #receive}.
     *
     * @throws InvalidUpdateException as {@link #receive}
     */
    default Receipt receiveUnsolicited(AveragingMessage message, LocalModel local, InstantSource clock) {
        return receive(message, local, clock);
    }

    /** A transport failure concerning a peer. */
    void onFailure(DeliveryFailure failure, LocalModel local, InstantSource clock);

    /**
     * Called by the trainer once it has handed over, through {@link #receive} and {@link #onFailure}, everything
     * that arrived since its last step, before it trains on or lets the model be read: merges into {@code local}
     * what this strategy gathered from those arrivals. A strategy that averages what arrives together rather than
     * one message at a time merges it here, so that an arrival is in the model from the step that takes it in: not
     * only at the next {@link #configure}, up to a round of steps later, in which time the node trains and is read
     * without it, and which never comes for what arrives after its last round. Default: nothing, for a strategy
     * that merges on receipt or holds contributions for a round of its own (a buffer, a barrier).
     */
    default void mergeArrived(LocalModel local) {}
}
