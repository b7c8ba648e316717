package dev.chorus.gpu.kernel;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/** What {@code cuLaunchKernel} reads from the {@code void**} that {@link KernelArgs} builds. */
class KernelArgsTest {

    /** The value that argument {@code i} points to, as the driver would dereference it. */
    private static MemorySegment slot(MemorySegment pointers, int i) {
        return pointers.reinterpret(8L * (i + 1)).getAtIndex(ADDRESS, i).reinterpret(8);
    }

    @Test
    void eachArgumentPointsAtItsValue() {
        try (Arena arena = Arena.ofConfined()) {
            KernelArgs args = new KernelArgs(arena);
            MemorySegment p = args.begin(Kernel.ADAM)
                    .ptr(0x7f00_0000_1000L)
                    .ptr(0x7f00_0000_2000L)
                    .ptr(0)
                    .ptr(0x7f00_0000_4000L)
                    .i64(5_000_000_000L)
                    .f32(1e-3f)
                    .f32(0.9f)
                    .f32(0.999f)
                    .f32(1e-8f)
                    .f32(0f)
                    .f32(0.5f)
                    .complete();
            assertThat(slot(p, 0).get(JAVA_LONG, 0)).isEqualTo(0x7f00_0000_1000L);
            assertThat(slot(p, 2).get(JAVA_LONG, 0)).isZero();
            assertThat(slot(p, 4).get(JAVA_LONG, 0)).isEqualTo(5_000_000_000L);
            assertThat(slot(p, 5).get(JAVA_FLOAT, 0)).isEqualTo(1e-3f);
            assertThat(slot(p, 10).get(JAVA_FLOAT, 0)).isEqualTo(0.5f);

            MemorySegment q = args.begin(Kernel.FINISH_SUM)
                    .ptr(0x1000)
                    .i32(-7)
                    .f64(0.25)
                    .ptr(0x2000)
                    .complete();
            assertThat(q).as("the pointer array is reused").isEqualTo(p);
            assertThat(slot(q, 1).get(JAVA_INT, 0)).isEqualTo(-7);
            assertThat(slot(q, 2).get(JAVA_DOUBLE, 0)).isEqualTo(0.25);
            assertThat(slot(q, 3).get(JAVA_LONG, 0)).isEqualTo(0x2000);
        }
    }

    @Test
    void slotsAreEightBytesApartAndAligned() {
        try (Arena arena = Arena.ofConfined()) {
            KernelArgs args = new KernelArgs(arena);
            MemorySegment p = args.begin(Kernel.SUB).ptr(1).ptr(2).ptr(3).i64(4).complete();
            for (int i = 0; i < 4; i++) {
                long at = p.reinterpret(32).getAtIndex(ADDRESS, i).address();
                assertThat(at % 8).isZero();
                if (i > 0) {
                    assertThat(at - p.reinterpret(32).getAtIndex(ADDRESS, i - 1).address())
                            .isEqualTo(8);
                }
            }
        }
    }

    @Test
    void wrongTypesCountsAndOrderAreRefused() {
        try (Arena arena = Arena.ofConfined()) {
            KernelArgs args = new KernelArgs(arena);
            assertThatThrownBy(() -> args.begin(Kernel.AXPY).ptr(1))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("AXPY parameter 0 is F32, not PTR");
            assertThatThrownBy(() -> args.begin(Kernel.SCALE).ptr(1).f32(2f).complete())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("takes 3 parameters, got 2");
            assertThatThrownBy(
                            () -> args.begin(Kernel.SCALE).ptr(1).f32(2f).i64(3).i64(4))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("got more");
            assertThatThrownBy(() -> new KernelArgs(arena).ptr(1)).isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void launchShapes() {
        assertThat(LaunchShape.linear(0, 64)).isEqualTo(new LaunchShape(1, 1, 256, 1));
        assertThat(LaunchShape.linear(256, 64).gridX()).isEqualTo(1);
        assertThat(LaunchShape.linear(257, 64).gridX()).isEqualTo(2);
        assertThat(LaunchShape.linear(1L << 40, 4224).gridX()).isEqualTo(4224);
        assertThatThrownBy(() -> new LaunchShape(1, 1, 64, 32)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LaunchShape(1, 70000, 32, 8)).isInstanceOf(IllegalArgumentException.class);
    }
}
