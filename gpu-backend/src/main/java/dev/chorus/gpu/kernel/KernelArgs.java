package dev.chorus.gpu.kernel;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The {@code void** kernelParams} of {@code cuLaunchKernel}, built without allocating: one native
 * block holds a fixed 8-byte slot per parameter and an array of pointers to those slots, set once.
 * A launch writes its values into the slots and passes the pointer array; the driver copies the
 * values during the call, so the same block serves the next launch at once.
 *
 * <p>Each {@code put} is checked against the kernel's declared {@link KernelParam}s, so a wrong
 * count or type fails in Java, before anything reaches the device. Not thread-safe: one per
 * backend.
 */
public final class KernelArgs {

    private static final int SLOT = 8;

    private final int capacity;
    private final MemorySegment values;
    private final MemorySegment pointers;
    private Kernel kernel;
    private int count;

    /** Allocates the block in {@code arena}, with room for the largest kernel's parameters. */
    public KernelArgs(Arena arena) {
        this(arena, Kernel.maxParams());
    }

    KernelArgs(Arena arena, int capacity) {
        this.capacity = capacity;
        MemorySegment block = arena.allocate((long) capacity * SLOT * 2, SLOT);
        values = block.asSlice(0, (long) capacity * SLOT);
        pointers = block.asSlice((long) capacity * SLOT, (long) capacity * SLOT);
        for (int i = 0; i < capacity; i++) {
            pointers.setAtIndex(ADDRESS, i, values.asSlice((long) i * SLOT, SLOT));
        }
    }

    /** Starts the arguments of one launch of {@code k}. */
    public KernelArgs begin(Kernel k) {
        if (k.params().size() > capacity) {
            throw new IllegalArgumentException(k + " takes " + k.params().size() + " parameters, room for " + capacity);
        }
        kernel = k;
        count = 0;
        return this;
    }

    private long next(KernelParam type) {
        if (kernel == null) {
            throw new IllegalStateException("begin(kernel) first");
        }
        if (count >= kernel.params().size()) {
            throw new IllegalStateException(kernel + " takes " + kernel.params().size() + " parameters, got more");
        }
        KernelParam declared = kernel.params().get(count);
        if (declared != type) {
            throw new IllegalStateException(kernel + " parameter " + count + " is " + declared + ", not " + type);
        }
        return (long) (count++) * SLOT;
    }

    /** A device pointer; 0 passes a null pointer. */
    public KernelArgs ptr(long devicePointer) {
        values.set(JAVA_LONG, next(KernelParam.PTR), devicePointer);
        return this;
    }

    public KernelArgs i32(int value) {
        values.set(JAVA_INT, next(KernelParam.I32), value);
        return this;
    }

    public KernelArgs i64(long value) {
        values.set(JAVA_LONG, next(KernelParam.I64), value);
        return this;
    }

    public KernelArgs f32(float value) {
        values.set(JAVA_FLOAT, next(KernelParam.F32), value);
        return this;
    }

    public KernelArgs f64(double value) {
        values.set(JAVA_DOUBLE, next(KernelParam.F64), value);
        return this;
    }

    /** The kernel being marshalled. */
    public Kernel kernel() {
        return kernel;
    }

    /**
     * The {@code void**} to pass to {@code cuLaunchKernel}.
     *
     * @throws IllegalStateException unless every parameter was given
     */
    public MemorySegment complete() {
        if (kernel == null || count != kernel.params().size()) {
            throw new IllegalStateException(
                    (kernel == null
                            ? "no kernel"
                            : kernel + " takes " + kernel.params().size() + " parameters, got " + count));
        }
        return pointers;
    }
}
