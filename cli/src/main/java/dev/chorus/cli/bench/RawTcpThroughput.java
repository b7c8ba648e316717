package dev.chorus.cli.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;

/**
 * The baseline without libp2p: one loopback TCP connection between blocking NIO socket channels, with
 * the sink's exchange (the client writes, half-closes, the server answers with the count as 8 bytes).
 */
public final class RawTcpThroughput implements AutoCloseable {
    private final ServerSocketChannel server;

    public RawTcpThroughput() throws IOException {
        server = ServerSocketChannel.open();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    }

    /** Seconds to send {@code bytes} in writes of {@code chunk} bytes and get the count back. */
    public double run(long bytes, int chunk) throws Exception {
        Thread reader = Thread.ofPlatform().name("raw-tcp-sink").start(() -> {
            try (SocketChannel s = server.accept()) {
                ByteBuffer buf = ByteBuffer.allocateDirect(chunk);
                long total = 0;
                int n;
                while ((n = s.read(buf.clear())) >= 0) {
                    total += n;
                }
                s.write(ByteBuffer.allocate(8).putLong(0, total));
            } catch (IOException e) {
                // the client sees no count and fails the run
            }
        });
        try (SocketChannel c = SocketChannel.open(server.getLocalAddress())) {
            ByteBuffer data = ByteBuffer.allocateDirect(chunk);
            fillRandom(data);
            ByteBuffer reply = ByteBuffer.allocate(8);
            long start = System.nanoTime();
            long sent = 0;
            while (sent < bytes) {
                data.clear().limit((int) Math.min(chunk, bytes - sent));
                while (data.hasRemaining()) {
                    sent += c.write(data);
                }
            }
            c.shutdownOutput();
            while (reply.hasRemaining() && c.read(reply) >= 0) {
                // until the 8-byte count is in
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            if (reply.hasRemaining() || reply.getLong(0) != bytes) {
                throw new IOException("raw TCP sink acknowledged "
                        + (reply.hasRemaining() ? "nothing" : reply.getLong(0)) + " of " + bytes + " bytes");
            }
            return seconds;
        } finally {
            reader.join(TimeUnit.SECONDS.toMillis(30));
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
    }

    /** Fills a buffer with pseudo-random bytes (so nothing along the way can shortcut zeros). */
    static void fillRandom(ByteBuffer b) {
        java.util.SplittableRandom r = new java.util.SplittableRandom(7);
        while (b.remaining() >= 8) {
            b.putLong(r.nextLong());
        }
        while (b.hasRemaining()) {
            b.put((byte) r.nextInt());
        }
        b.flip();
    }
}
