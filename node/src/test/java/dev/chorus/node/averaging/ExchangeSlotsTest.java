package dev.chorus.node.averaging;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.aggregation.Outbound;
import dev.chorus.aggregation.PullRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ExchangeSlotsTest {
    private static final int DIM = 100;

    private static Outbound fragment(String peer, int values) {
        int[] indices = new int[values];
        for (int i = 0; i < values; i++) {
            indices[i] = i;
        }
        return new Outbound(peer, ModelUpdate.fragment("me", 1, 1, DIM, indices, new float[values]));
    }

    private static Outbound pull(String peer) {
        return new Outbound(peer, new PullRequest("me", 1, null));
    }

    /**
     * Random mixes of pulls, whole models and fragments for a few peers: every slot goes to one peer; a slot of more
     * than one holds pushes only, at most maxBatch of them, within one model's values; a push opens a slot only when
     * the last slot of its peer could not take it; no slot is lost or repeated; and the counts the engine admits by
     * ({@code slotsFor}, {@code opensSlot}) agree with the grouping.
     */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
    void slotsFollowTheirRules(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        int maxBatch = 1 + r.nextInt(6);
        List<Outbound> out = new ArrayList<>();
        int n = r.nextInt(30);
        for (int i = 0; i < n; i++) {
            String peer = "p" + r.nextInt(4);
            int kind = r.nextInt(10);
            out.add(kind == 0 ? pull(peer) : kind == 1 ? fragment(peer, DIM) : fragment(peer, 1 + r.nextInt(40)));
        }
        List<List<Outbound>> slots = ExchangeSlots.group(out, maxBatch, DIM);
        List<Outbound> flat = new ArrayList<>();
        slots.forEach(flat::addAll);
        assertThat(flat).containsExactlyInAnyOrderElementsOf(out);
        for (List<Outbound> slot : slots) {
            assertThat(slot)
                    .extracting(Outbound::recipient)
                    .containsOnly(slot.getFirst().recipient());
            if (slot.size() > 1) {
                assertThat(slot.size()).isLessThanOrEqualTo(maxBatch);
                assertThat(slot).allSatisfy(o -> assertThat(o.message()).isInstanceOf(ModelUpdate.class));
                assertThat(slot.stream()
                                .mapToInt(o -> ((ModelUpdate) o.message()).values().length)
                                .sum())
                        .isLessThanOrEqualTo(DIM);
            }
        }
        List<Outbound> pending = new ArrayList<>();
        for (Outbound o : out) {
            int before = ExchangeSlots.slotsFor(o.recipient(), pending, null, maxBatch, DIM);
            int after = ExchangeSlots.slotsFor(o.recipient(), pending, o, maxBatch, DIM);
            assertThat(after - before).isBetween(0, 1);
            assertThat(ExchangeSlots.opensSlot(o, pending, maxBatch, DIM)).isEqualTo(after > before);
            pending.add(o);
        }
        int total = 0;
        for (String peer : List.of("p0", "p1", "p2", "p3")) {
            total += ExchangeSlots.slotsFor(peer, out, null, maxBatch, DIM);
        }
        assertThat(total).isEqualTo(slots.size());
        if (maxBatch == 1) {
            assertThat(slots).hasSize(out.size());
        }
    }
}
