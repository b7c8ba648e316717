package dev.chorus.node.averaging;

import dev.chorus.aggregation.AveragingMessage;
import dev.chorus.aggregation.AveragingStrategy;
import dev.chorus.aggregation.DeliveryFailure;
import dev.chorus.aggregation.LocalModel;
import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.aggregation.Outbound;
import dev.chorus.aggregation.Receipt;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.random.RandomGenerator;

/**
 * The engine tests' strategy: queues {@code count} full models for each of {@code to} (null: the peers the round
 * offers) every round, the peers taken in turn, answers each model it receives with {@code replies} copies of its own, and records the failures it hears.
 * The test may change these between rounds.
 */
final class PushBurst implements AveragingStrategy {
    final LinkedBlockingQueue<DeliveryFailure> failures = new LinkedBlockingQueue<>();
    private final ArrayDeque<Outbound> queue = new ArrayDeque<>();
    volatile List<String> to;
    volatile int count;
    volatile int replies;
    /** 1: full models; k: each send is the first k-th of the parameters instead (a fragment, explicit indices). */
    volatile int parts = 1;

    private final boolean everyRecipient;

    PushBurst(List<String> to, int count) {
        this(to, count, false);
    }

    /** With {@code everyRecipient}, as a barrier strategy: {@link #awaitsEveryRecipient()} says so. */
    PushBurst(List<String> to, int count, boolean everyRecipient) {
        this.to = to;
        this.count = count;
        this.everyRecipient = everyRecipient;
    }

    @Override
    public boolean awaitsEveryRecipient() {
        return everyRecipient;
    }

    @Override
    public void configure(LocalModel local, List<String> peers, RandomGenerator random, InstantSource clock) {
        queue.clear();
        List<String> targets = to == null ? peers : to;
        for (int i = 0; i < count; i++) {
            for (String peer : targets) {
                queue.add(parts > 1 ? fragment(peer, local, parts) : model(peer, local));
            }
        }
    }

    private static Outbound fragment(String peer, LocalModel local, int parts) {
        int size = Math.max(1, local.dimension() / parts);
        int[] indices = new int[size];
        float[] values = new float[size];
        for (int i = 0; i < size; i++) {
            indices[i] = i;
            values[i] = local.params()[i];
        }
        return new Outbound(
                peer,
                ModelUpdate.fragment(
                        local.id(), local.version(), local.sampleCount(), local.dimension(), indices, values));
    }

    private static Outbound model(String peer, LocalModel local) {
        return new Outbound(
                peer,
                ModelUpdate.full(
                        local.id(),
                        local.version(),
                        local.sampleCount(),
                        local.params().clone()));
    }

    @Override
    public Outbound pollOutbound() {
        return queue.pollFirst();
    }

    @Override
    public int pendingOutbound() {
        return queue.size();
    }

    @Override
    public Receipt receive(AveragingMessage message, LocalModel local, InstantSource clock) {
        if (replies == 0 || !(message instanceof ModelUpdate u)) {
            return Receipt.buffered();
        }
        List<Outbound> out = new ArrayList<>();
        for (int i = 0; i < replies; i++) {
            out.add(model(u.sender(), local));
        }
        return new Receipt(Receipt.Outcome.ANSWERED, "", out);
    }

    @Override
    public void onFailure(DeliveryFailure failure, LocalModel local, InstantSource clock) {
        failures.add(failure);
    }
}
