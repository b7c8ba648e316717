package dev.chorus.gpu.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.gpu.cuda.DeviceOutOfMemoryException;
import org.junit.jupiter.api.Test;

/** Allocation and free accounting of scopes, buffers and the caching allocator. */
class DeviceMemoryTest {

    @Test
    void aScopeFreesWhatIsLeftWhenClosed() {
        CountingAllocator device = new CountingAllocator();
        DeviceScope scope = new DeviceScope(device);
        DeviceBuffer a = scope.allocate(100), b = scope.allocate(200), c = scope.allocate(300);
        assertThat(device.allocations).isEqualTo(3);
        b.close();
        assertThat(device.frees).isEqualTo(1);
        assertThat(scope.liveBuffers()).isEqualTo(2);
        scope.close();
        assertThat(device.frees).isEqualTo(3);
        assertThat(device.liveBlocks()).isZero();
        assertThat(a.isOpen()).isFalse();
        assertThat(c.isOpen()).isFalse();
        assertThatThrownBy(a::address).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> scope.allocate(1)).isInstanceOf(IllegalStateException.class);
        scope.close(); // idempotent
        a.close(); // so is closing a freed buffer
        assertThat(device.frees).isEqualTo(3);
    }

    @Test
    void childScopesCloseWithTheirParentAndAlone() {
        CountingAllocator device = new CountingAllocator();
        DeviceScope root = new DeviceScope(device);
        DeviceBuffer kept = root.allocate(64);
        DeviceScope child = root.child();
        DeviceScope grandchild = child.child();
        child.allocate(64);
        grandchild.allocate(64);
        grandchild.allocate(64);
        assertThat(device.allocations).isEqualTo(4);
        grandchild.close();
        assertThat(device.frees).isEqualTo(2);
        assertThat(kept.isOpen()).isTrue();
        DeviceScope other = root.child();
        other.allocate(8);
        root.close();
        assertThat(device.allocations).isEqualTo(device.frees);
        assertThat(child.isOpen()).isFalse();
        assertThat(other.isOpen()).isFalse();
    }

    @Test
    void emptyBuffersTakeNoMemory() {
        CountingAllocator device = new CountingAllocator();
        try (DeviceScope scope = new DeviceScope(device)) {
            DeviceBuffer empty = scope.allocate(0);
            assertThat(empty.address()).isZero();
            empty.close();
        }
        assertThat(device.allocations).isZero();
        assertThat(device.frees).isZero();
    }

    @Test
    void theCacheReusesBlocksOfTheSameRoundedSize() {
        CountingAllocator device = new CountingAllocator();
        CachingAllocator cache = new CachingAllocator(device);
        long a = cache.allocate(1000);
        cache.free(a);
        long b = cache.allocate(1024); // same 1024-byte bin
        assertThat(b).isEqualTo(a);
        assertThat(device.allocations).isEqualTo(1);
        long c = cache.allocate(5000);
        assertThat(device.allocations).isEqualTo(2);
        AllocationStats s = cache.stats();
        assertThat(s.reuses()).isEqualTo(1);
        assertThat(s.liveBlocks()).isEqualTo(2);
        assertThat(s.bytesInUse()).isEqualTo(1024 + 5120);
        cache.free(b);
        cache.free(c);
        assertThat(cache.stats().bytesCached()).isEqualTo(1024 + 5120);
        assertThat(device.frees).as("freed blocks stay cached").isZero();
        cache.close();
        assertThat(device.frees).isEqualTo(2);
        assertThat(device.liveBlocks()).isZero();
        assertThatThrownBy(() -> cache.allocate(1)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aFullDeviceFirstGetsTheCacheBack() {
        CountingAllocator device = new CountingAllocator();
        device.budget = 4096;
        CachingAllocator cache = new CachingAllocator(device);
        long a = cache.allocate(3000);
        cache.free(a); // 3072 bytes cached, 1024 left on the device
        long b = cache.allocate(2048);
        assertThat(device.frees).as("the cache was released to make room").isEqualTo(1);
        assertThat(device.allocations).isEqualTo(2);
        assertThatThrownBy(() -> cache.allocate(4096))
                .as("with nothing cached, out of memory stays out of memory")
                .isInstanceOf(DeviceOutOfMemoryException.class);
        cache.free(b);
        cache.close();
        assertThat(device.liveBlocks()).isZero();
    }

    @Test
    void blocksReturnedAfterCloseGoStraightToTheDevice() {
        CountingAllocator device = new CountingAllocator();
        CachingAllocator cache = new CachingAllocator(device);
        long a = cache.allocate(10);
        cache.close();
        cache.free(a);
        assertThat(device.frees).isEqualTo(1);
        assertThatThrownBy(() -> cache.free(a)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void scopesOverTheCacheAccountForEveryBlock() {
        CountingAllocator device = new CountingAllocator();
        CachingAllocator cache = new CachingAllocator(device);
        DeviceScope root = new DeviceScope(cache);
        for (int step = 0; step < 10; step++) {
            try (DeviceScope perStep = root.child()) {
                perStep.allocate(4096);
                perStep.allocate(100);
            }
        }
        assertThat(device.allocations)
                .as("one block per size, reused every step")
                .isEqualTo(2);
        assertThat(cache.stats().reuses()).isEqualTo(18);
        root.close();
        cache.close();
        assertThat(device.frees).isEqualTo(device.allocations);
    }
}
