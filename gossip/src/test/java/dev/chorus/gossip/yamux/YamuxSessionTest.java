package dev.chorus.gossip.yamux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.gossip.Vectors;
import dev.chorus.gossip.core.Stream;
import dev.chorus.gossip.core.StreamLimitExceededException;
import dev.chorus.gossip.core.StreamResetException;
import io.netty.buffer.Unpooled;
import java.io.EOFException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class YamuxSessionTest {
    @Test
    void framesMatchJsVectors() {
        try (YamuxPair p = new YamuxPair()) {
            // Both sessions begin with a Ping SYN (value 1) for the RTT.
            assertThat(YamuxPair.drainOutbound(p.clientCh))
                    .isEqualTo(HexFormat.of().parseHex("000200010000000000000001"));
            YamuxPair.drainOutbound(p.serverCh);
            YamuxStream s = p.client.openStream().join();
            assertThat(s.id()).isEqualTo(1);
            assertThat(YamuxPair.drainOutbound(p.clientCh)).isEqualTo(Vectors.hex("yamux.openStream1WindowUpdateSyn"));
            s.write("hello".getBytes());
            byte[] data = YamuxPair.drainOutbound(p.clientCh);
            assertThat(Arrays.copyOf(data, 12)).isEqualTo(Vectors.hex("yamux.data5BytesStream1"));
            s.closeWrite();
            assertThat(YamuxPair.drainOutbound(p.clientCh))
                    .isEqualTo(HexFormat.of().parseHex("000100040000000100000000"));
            // A js peer's Ping SYN is answered with the same value.
            p.clientCh.writeInbound(Unpooled.wrappedBuffer(Vectors.hex("yamux.pingSyn")));
            assertThat(YamuxPair.drainOutbound(p.clientCh)).isEqualTo(Vectors.hex("yamux.pingAck"));
        }
    }

    @Test
    void openWriteReadHalfCloseAndClose() {
        try (YamuxPair p = new YamuxPair()) {
            p.pump();
            assertThat(p.client.rtt()).isZero(); // manual clock did not move
            YamuxStream c = p.client.openStream().join();
            c.write("ping?".getBytes());
            p.pump();
            assertThat(p.serverInbound).hasSize(1);
            YamuxStream sv = p.serverInbound.get(0);
            assertThat(c.acked()).isTrue();
            assertThat(new String(sv.read().join())).isEqualTo("ping?");
            CompletableFuture<byte[]> eof = sv.read();
            c.closeWrite();
            p.pump();
            assertThat(eof.join()).isSameAs(Stream.EOF);
            sv.write("pong".getBytes());
            sv.closeWrite();
            p.pump();
            assertThat(c.readToEnd(100).join()).isEqualTo("pong".getBytes());
            assertThat(c.closeFuture()).isDone();
            assertThat(sv.closeFuture()).isDone();
            assertThat(p.client.openStreams()).isZero();
            assertThat(p.server.openStreams()).isZero();
        }
    }

    @Test
    void slowReaderStallsSenderAtTheWindow() {
        try (YamuxPair p = new YamuxPair()) {
            p.pump();
            YamuxStream c = p.client.openStream().join();
            byte[] big = new byte[1024 * 1024];
            Arrays.fill(big, (byte) 7);
            CompletableFuture<Void> w = c.write(big);
            p.pump();
            YamuxStream sv = p.serverInbound.get(0);
            // Only the initial 256 KiB window crossed; the write waits.
            assertThat(sv.buffered()).isEqualTo(256 * 1024);
            assertThat(c.sendWindow()).isZero();
            assertThat(w).isNotDone();
            CompletableFuture<byte[]> all = sv.readExactly(big.length);
            assertThat(all).isNotDone();
            assertThat(sv.read()).isCompletedExceptionally(); // one read at a time
            p.pump();
            assertThat(all.join()).isEqualTo(big);
            assertThat(w).isDone();
            assertThat(sv.buffered()).isZero();
        }
    }

    @Test
    void readExactlyAcrossChunksAndEofError() {
        try (YamuxPair p = new YamuxPair()) {
            p.pump();
            YamuxStream c = p.client.openStream().join();
            c.write(new byte[] {1, 2, 3});
            c.write(new byte[] {4, 5, 6});
            p.pump();
            YamuxStream sv = p.serverInbound.get(0);
            assertThat(sv.readExactly(4).join()).containsExactly(1, 2, 3, 4);
            assertThat(sv.read().join()).containsExactly(5, 6);
            CompletableFuture<byte[]> r = sv.readExactly(10);
            c.write(new byte[] {9});
            c.closeWrite();
            p.pump();
            assertThat(r.exceptionNow()).isInstanceOf(EOFException.class).hasMessageContaining("after 1 of 10");
        }
    }

    @Test
    void readToEndOverItsLimitFailsTypedAndResets() {
        try (YamuxPair p = new YamuxPair()) {
            p.pump();
            YamuxStream c = p.client.openStream().join();
            c.write(new byte[6]);
            p.pump();
            YamuxStream sv = p.serverInbound.get(0);
            CompletableFuture<byte[]> r = sv.readToEnd(5);
            p.pump();
            assertThat(r.exceptionNow())
                    .isInstanceOf(StreamLimitExceededException.class)
                    .hasMessageContaining("more than 5 bytes");
            assertThat(((StreamLimitExceededException) r.exceptionNow()).limit())
                    .isEqualTo(5);
            // Seen through a dependent stage the failure is wrapped; the cause chain still names it.
            Throwable wrapped = r.thenApply(b -> b.length).handle((v, e) -> e).join();
            assertThat(wrapped).isInstanceOf(CompletionException.class);
            assertThat(StreamLimitExceededException.isCauseOf(wrapped)).isTrue();
            assertThat(StreamLimitExceededException.isCauseOf(new StreamResetException("gone")))
                    .isFalse();
            p.pump();
            assertThat(p.client.openStreams()).isZero();
            assertThat(p.server.openStreams()).isZero();
        }
    }

    @Test
    void resetFailsPendingOperations() {
        try (YamuxPair p = new YamuxPair()) {
            p.pump();
            YamuxStream c = p.client.openStream().join();
            c.write(new byte[1]);
            p.pump();
            YamuxStream sv = p.serverInbound.get(0);
            sv.read().join();
            CompletableFuture<byte[]> r = sv.read();
            c.reset();
            p.pump();
            assertThat(r.exceptionNow()).isInstanceOf(StreamResetException.class);
            assertThat(sv.write(new byte[1])).isCompletedExceptionally();
            // Operations after the reset fail at once too.
            assertThat(sv.read().exceptionNow()).isInstanceOf(StreamResetException.class);
            assertThat(sv.closeWrite()).isCompletedExceptionally();
            assertThat(p.server.openStreams()).isZero();
            assertThat(p.client.openStreams()).isZero();
        }
    }

    @Test
    void windowGrowsWhenReaderKeepsUp() {
        try (YamuxPair p = new YamuxPair()) {
            p.pump(); // ping SYN -> ACK, with the clock still: rtt 0
            p.clock.addAndGet(1_000_000); // 1 ms
            p.client.ping();
            p.server.ping();
            p.clock.addAndGet(2_000_000);
            p.pump(); // rtt = 2 ms
            assertThat(p.server.rtt().toMillis()).isEqualTo(2);
            YamuxStream c = p.client.openStream().join();
            byte[] chunk = new byte[256 * 1024];
            c.write(chunk);
            p.pump();
            YamuxStream sv = p.serverInbound.get(0);
            long before = sv.receiveWindowMax();
            sv.readExactly(chunk.length).join(); // consumed within 4 RTTs of the stream opening
            p.pump();
            assertThat(sv.receiveWindowMax()).isEqualTo(2 * before);
            assertThat(c.sendWindow()).isEqualTo(2 * before);
            // A reader slower than 4 RTTs keeps the window where it is.
            c.write(new byte[(int) (2 * before)]);
            p.pump();
            p.clock.addAndGet(100_000_000);
            sv.readExactly((int) (2 * before)).join();
            p.pump();
            assertThat(sv.receiveWindowMax()).isEqualTo(2 * before);
        }
    }

    @Test
    void goAwayStopsNewStreams() {
        try (YamuxPair p = new YamuxPair()) {
            p.pump();
            p.server.goAway();
            p.pump();
            assertThat(p.client.openStream()).isCompletedExceptionally();
            assertThat(p.serverCh.isOpen()).isTrue();
            p.client.close();
            p.pump();
            assertThat(p.clientCh.isOpen()).isFalse();
            assertThat(p.client.closeFuture()).isDone();
        }
    }

    @Test
    void largerInitialWindowIsGrantedWithSynAndAck() {
        YamuxConfig cfg = YamuxConfig.defaults().withKeepAliveInterval(java.time.Duration.ZERO);
        assertThat(cfg.windows().initialWindow()).isEqualTo(1024 * 1024);
        try (YamuxPair p = new YamuxPair(cfg)) {
            p.pump();
            YamuxStream c = p.client.openStream().join();
            // SYN with delta 1 MiB - 256 KiB.
            assertThat(YamuxPair.drainOutbound(p.clientCh))
                    .isEqualTo(HexFormat.of().parseHex("0001000100000001000c0000"));
            p.clientCh.writeInbound(Unpooled.wrappedBuffer(HexFormat.of().parseHex("00010002000000010000000a")));
            assertThat(c.sendWindow()).isEqualTo(256 * 1024 + 10);
        }
        try (YamuxPair p = new YamuxPair(cfg)) {
            p.pump();
            YamuxStream c = p.client.openStream().join();
            c.write(new byte[2 * 1024 * 1024]);
            p.pump();
            YamuxStream sv = p.serverInbound.get(0);
            assertThat(sv.buffered()).isEqualTo(1024 * 1024);
            assertThat(c.sendWindow()).isZero();
        }
    }

    @Test
    void unwritableChannelPausesSendingUntilWritable() {
        try (YamuxPair p = new YamuxPair()) {
            p.pump();
            YamuxStream c = p.client.openStream().join();
            p.pump();
            // What a full socket send buffer looks like to the session.
            p.clientCh.unsafe().outboundBuffer().setUserDefinedWritability(1, false);
            assertThat(p.clientCh.isWritable()).isFalse();
            CompletableFuture<Void> w = c.write(new byte[100_000]);
            assertThat(YamuxPair.drainOutbound(p.clientCh)).isEmpty();
            assertThat(w).isNotDone();
            p.clientCh.unsafe().outboundBuffer().setUserDefinedWritability(1, true);
            p.clientCh.runPendingTasks();
            p.pump();
            assertThat(w).isDone();
            assertThat(p.serverInbound.get(0).buffered()).isEqualTo(100_000);
        }
    }

    @Test
    void unansweredKeepAliveClosesSession() {
        YamuxConfig cfg = YamuxConfig.defaults().withKeepAliveInterval(java.time.Duration.ofSeconds(30));
        try (YamuxPair p = new YamuxPair(cfg)) {
            p.clientCh.freezeTime();
            p.pump();
            // The server answers the first keep-alive; then it goes silent (its bytes are dropped).
            p.clientCh.advanceTimeBy(30, java.util.concurrent.TimeUnit.SECONDS);
            p.clientCh.runScheduledPendingTasks();
            p.pump();
            assertThat(p.clientCh.isOpen()).isTrue();
            p.clientCh.advanceTimeBy(30, java.util.concurrent.TimeUnit.SECONDS);
            p.clientCh.runScheduledPendingTasks();
            YamuxPair.drainOutbound(p.clientCh); // the keep-alive ping, never delivered
            assertThat(p.clientCh.isOpen()).isTrue();
            p.clientCh.advanceTimeBy(30, java.util.concurrent.TimeUnit.SECONDS);
            p.clientCh.runScheduledPendingTasks();
            assertThat(p.clientCh.isOpen()).isFalse();
        }
    }

    @Test
    void aPeerThatKeepsSendingIsAliveThoughItsPingAnswerIsLate() {
        YamuxConfig cfg = YamuxConfig.defaults().withKeepAliveInterval(java.time.Duration.ofSeconds(30));
        try (YamuxPair p = new YamuxPair(cfg)) {
            p.clientCh.freezeTime();
            p.pump();
            p.clientCh.advanceTimeBy(30, java.util.concurrent.TimeUnit.SECONDS);
            p.clientCh.runScheduledPendingTasks(); // keep-alive ping 1, answered
            p.pump();
            p.clientCh.advanceTimeBy(30, java.util.concurrent.TimeUnit.SECONDS);
            p.clientCh.runScheduledPendingTasks();
            YamuxPair.drainOutbound(p.clientCh); // ping 2 waits in a slow link's queue: the server never sees it
            // ... while the server's bytes keep arriving (here, a ping of its own).
            p.server.ping();
            YamuxPair.move(p.serverCh, p.clientCh);
            YamuxPair.drainOutbound(p.clientCh);
            p.clientCh.advanceTimeBy(30, java.util.concurrent.TimeUnit.SECONDS);
            p.clientCh.runScheduledPendingTasks();
            assertThat(p.clientCh.isOpen()).isTrue();
            // Then a whole interval of silence with the ping still unanswered: the session closes.
            p.clientCh.advanceTimeBy(30, java.util.concurrent.TimeUnit.SECONDS);
            p.clientCh.runScheduledPendingTasks();
            assertThat(p.clientCh.isOpen()).isFalse();
        }
    }

    @Test
    void pingMeasuresRtt() {
        try (YamuxPair p = new YamuxPair()) {
            p.pump();
            CompletableFuture<java.time.Duration> rtt = p.client.ping();
            p.clock.addAndGet(5_000_000);
            p.pump();
            assertThat(rtt.join().toMillis()).isEqualTo(5);
        }
    }
}
