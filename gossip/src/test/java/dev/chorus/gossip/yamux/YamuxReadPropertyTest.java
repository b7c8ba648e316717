package dev.chorus.gossip.yamux;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Whatever the frames the sender's writes become and whatever mix of reads the receiver makes (a chunk, an exact
 * count, bytes put back with {@code unread}, the rest to the end), the receiver reads the bytes sent, in order, once.
 * Seeded: each seed is one random schedule, replayable.
 */
class YamuxReadPropertyTest {

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
    void everyMixOfReadsYieldsTheBytesSentInOrder(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        byte[] sent = new byte[1 + random.nextInt(200_000)];
        random.nextBytes(sent);
        try (YamuxPair p = new YamuxPair()) {
            p.pump();
            YamuxStream c = p.client.openStream().join();
            for (int at = 0; at < sent.length; ) {
                int n = Math.min(sent.length - at, 1 + random.nextInt(random.nextBoolean() ? 64 : 70_000));
                byte[] piece = new byte[n];
                System.arraycopy(sent, at, piece, 0, n);
                c.write(piece);
                at += n;
            }
            c.closeWrite();
            YamuxStream s = null;
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            while (true) {
                p.pump();
                if (s == null) {
                    s = p.serverInbound.get(0);
                }
                int kind = random.nextInt(4);
                CompletableFuture<byte[]> read;
                if (kind == 0) {
                    read = s.read();
                } else if (kind == 1 || kind == 2) {
                    read = s.readExactly(
                            Math.min(sent.length - got.size(), 1 + random.nextInt(kind == 1 ? 16 : 50_000)));
                } else {
                    read = s.readToEnd(sent.length);
                }
                p.pump();
                byte[] chunk = read.join();
                if (kind == 0 && chunk.length > 1 && random.nextInt(3) == 0) {
                    // Put the tail back, as a negotiation that read past its last line does.
                    int keep = 1 + random.nextInt(chunk.length - 1);
                    byte[] tail = new byte[chunk.length - keep];
                    System.arraycopy(chunk, keep, tail, 0, tail.length);
                    s.unread(tail);
                    got.write(chunk, 0, keep);
                } else {
                    got.write(chunk, 0, chunk.length);
                }
                if (kind == 3 || chunk.length == 0 || got.size() == sent.length) {
                    break;
                }
            }
            assertThat(got.toByteArray()).as("seed %d", seed).isEqualTo(sent);
        }
    }
}
