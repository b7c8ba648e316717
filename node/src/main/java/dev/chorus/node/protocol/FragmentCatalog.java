package dev.chorus.node.protocol;

import dev.chorus.aggregation.ModelFragmentation;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The seeded fragmentations this node knows, so that a fragment travels as (fragment count, seed, number) instead
 * of 4 bytes per coordinate. Only registered fragmentations are accepted on receipt: a peer cannot make this node
 * compute the permutation of a seed of its choosing.
 */
public final class FragmentCatalog {

    /** A fragment named by its fragmentation and number. */
    public record FragmentName(int fragments, long seed, int number) {}

    private record Entry(ModelFragmentation fragmentation, long seed, Map<int[], Integer> numbers) {}

    private final List<Entry> entries = new CopyOnWriteArrayList<>();

    /** Registers {@code fragmentation}, named by its count and seed; its index arrays identify its fragments. */
    public FragmentCatalog register(ModelFragmentation fragmentation) {
        Map<int[], Integer> numbers = new IdentityHashMap<>();
        for (int f = 0; f < fragmentation.fragmentCount(); f++) {
            numbers.put(fragmentation.indices(f), f);
        }
        entries.add(new Entry(fragmentation, fragmentation.seed(), numbers));
        return this;
    }

    /** The name of {@code indices} if it is (the very array of) a registered fragment, else null. */
    FragmentName nameOf(int[] indices, int dimension) {
        for (Entry e : entries) {
            if (e.fragmentation.dimension() != dimension) {
                continue;
            }
            Integer f = e.numbers.get(indices);
            if (f != null) {
                return new FragmentName(e.fragmentation.fragmentCount(), e.seed, f);
            }
        }
        return null;
    }

    /** The registered fragmentations of a model of {@code dimension} parameters, for an error message. */
    String describe(int dimension) {
        StringBuilder sb = new StringBuilder();
        for (Entry e : entries) {
            if (e.fragmentation.dimension() == dimension) {
                sb.append(sb.isEmpty() ? "" : " or ")
                        .append(e.fragmentation.fragmentCount())
                        .append(e.fragmentation.fragmentCount() == 1 ? " fragment" : " fragments")
                        .append(" with seed ")
                        .append(e.seed);
            }
        }
        return sb.isEmpty() ? "no fragmentation" : sb.toString();
    }

    /** The coordinates of a named fragment, or null when its fragmentation is not registered. */
    int[] indicesOf(FragmentName name, int dimension) {
        for (Entry e : entries) {
            if (e.fragmentation.dimension() == dimension
                    && e.fragmentation.fragmentCount() == name.fragments()
                    && e.seed == name.seed()) {
                return name.number() >= 0 && name.number() < name.fragments()
                        ? e.fragmentation.indices(name.number())
                        : null;
            }
        }
        return null;
    }
}
