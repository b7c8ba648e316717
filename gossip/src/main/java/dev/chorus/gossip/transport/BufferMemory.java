package dev.chorus.gossip.transport;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetric;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.netty.util.internal.PlatformDependent;

/**
 * Memory held by the network buffers of this JVM, for diagnostics and benchmarks: what the default
 * buffer allocator has reserved (pooled chunks, direct and heap), and the direct memory Netty counts
 * itself ({@code -1} when it leaves the count to the JDK's direct buffer pool).
 */
public record BufferMemory(long allocatorDirect, long allocatorHeap, long nettyDirectCounter) {
    public static BufferMemory current() {
        long direct = -1;
        long heap = -1;
        if (ByteBufAllocator.DEFAULT instanceof ByteBufAllocatorMetricProvider p) {
            ByteBufAllocatorMetric m = p.metric();
            direct = m.usedDirectMemory();
            heap = m.usedHeapMemory();
        }
        return new BufferMemory(direct, heap, PlatformDependent.usedDirectMemory());
    }
}
