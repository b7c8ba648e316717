package dev.chorus.gossip.yamux;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** A hostile remote, writing raw frames at a server session. */
class YamuxAttackTest {
    static ByteBuf frame(int type, int flags, int id, long length, int payload) {
        ByteBuf b = Unpooled.buffer();
        YamuxFrame.writeHeader(b, type, flags, id, length);
        b.writeZero(payload);
        return b;
    }

    static String goAwayCode(byte[] out) {
        // The last frame written is the GoAway; its length field is the code.
        int n = out.length;
        return HexFormat.of().formatHex(out, n - 12, n);
    }

    @Test
    void dataBeyondWindowClosesSessionWithProtocolError() {
        try (YamuxPair p = new YamuxPair()) {
            YamuxPair.drainOutbound(p.serverCh);
            p.serverCh.writeInbound(frame(YamuxFrame.TYPE_WINDOW_UPDATE, YamuxFrame.FLAG_SYN, 1, 0, 0));
            // Announce 256 KiB + 1: refused on the header, before the payload is buffered.
            p.serverCh.writeInbound(frame(YamuxFrame.TYPE_DATA, 0, 1, 256 * 1024 + 1, 10));
            assertThat(p.serverCh.isOpen()).isFalse();
            assertThat(goAwayCode(YamuxPair.drainOutbound(p.serverCh))).isEqualTo("000300000000000000000001");
        }
    }

    @Test
    void unknownStreamFramesAreDiscardedWithoutBuffering() {
        try (YamuxPair p = new YamuxPair()) {
            // A 10 MiB Data frame for a stream that does not exist, sent in pieces.
            long len = 10L * 1024 * 1024;
            p.serverCh.writeInbound(frame(YamuxFrame.TYPE_DATA, 0, 77, len, 0));
            for (int i = 0; i < 10; i++) {
                p.serverCh.writeInbound(Unpooled.wrappedBuffer(new byte[1024 * 1024]));
            }
            p.serverCh.writeInbound(frame(YamuxFrame.TYPE_WINDOW_UPDATE, YamuxFrame.FLAG_ACK, 99, 1000, 0));
            assertThat(p.serverCh.isOpen()).isTrue();
            // The session still works afterwards.
            p.pump();
            YamuxStream c = p.client.openStream().join();
            c.write("ok".getBytes());
            p.pump();
            assertThat(new String(p.serverInbound.get(0).read().join())).isEqualTo("ok");
        }
    }

    @Test
    void streamsBeyondLimitAreRefusedAndFloodsClose() {
        YamuxConfig cfg = YamuxConfig.defaults()
                .withInitialWindow(YamuxConfig.SPEC_INITIAL_WINDOW)
                .withKeepAliveInterval(java.time.Duration.ZERO)
                .withMaxInboundStreams(4)
                .withMaxRefusedStreams(10);
        try (YamuxPair p = new YamuxPair(cfg)) {
            YamuxPair.drainOutbound(p.serverCh);
            for (int i = 0; i < 6; i++) {
                p.serverCh.writeInbound(frame(YamuxFrame.TYPE_WINDOW_UPDATE, YamuxFrame.FLAG_SYN, 1 + 2 * i, 0, 0));
            }
            assertThat(p.serverInbound).hasSize(4);
            byte[] out = YamuxPair.drainOutbound(p.serverCh);
            // 4 ACKs then 2 RSTs (streams 9 and 11).
            assertThat(HexFormat.of().formatHex(out, 48, 72))
                    .isEqualTo("000100080000000900000000" + "000100080000000b00000000");
            for (int i = 6; i < 20 && p.serverCh.isOpen(); i++) {
                p.serverCh.writeInbound(frame(YamuxFrame.TYPE_WINDOW_UPDATE, YamuxFrame.FLAG_SYN, 1 + 2 * i, 0, 0));
            }
            assertThat(p.serverCh.isOpen()).isFalse();
            assertThat(goAwayCode(YamuxPair.drainOutbound(p.serverCh))).isEqualTo("000300000000000000000001");
        }
    }

    @Test
    void malformedFramesCloseTheSession() {
        String[] bad = {
            "010000000000000100000000", // version 1
            "000700000000000000000000", // unknown type
            "000000010000000200000000", // server-parity stream opened by the client side
            "000200010000000500000000" // ping on a stream
        };
        for (String hex : bad) {
            try (YamuxPair p = new YamuxPair()) {
                p.serverCh.writeInbound(Unpooled.wrappedBuffer(HexFormat.of().parseHex(hex)));
                assertThat(p.serverCh.isOpen()).as(hex).isFalse();
            }
        }
    }

    @Test
    void dataAfterFinResetsOnlyThatStream() {
        try (YamuxPair p = new YamuxPair()) {
            p.serverCh.writeInbound(frame(YamuxFrame.TYPE_DATA, YamuxFrame.FLAG_SYN | YamuxFrame.FLAG_FIN, 1, 3, 3));
            YamuxStream s = p.serverInbound.get(0);
            YamuxPair.drainOutbound(p.serverCh);
            p.serverCh.writeInbound(frame(YamuxFrame.TYPE_DATA, 0, 1, 3, 3));
            assertThat(YamuxPair.drainOutbound(p.serverCh))
                    .isEqualTo(HexFormat.of().parseHex("000100080000000100000000"));
            assertThat(s.closeFuture()).isDone();
            assertThat(p.serverCh.isOpen()).isTrue();
        }
    }

    @Test
    void duplicateSynClosesSession() {
        try (YamuxPair p = new YamuxPair()) {
            p.serverCh.writeInbound(frame(YamuxFrame.TYPE_WINDOW_UPDATE, YamuxFrame.FLAG_SYN, 1, 0, 0));
            p.serverCh.writeInbound(frame(YamuxFrame.TYPE_WINDOW_UPDATE, YamuxFrame.FLAG_SYN, 1, 0, 0));
            assertThat(p.serverCh.isOpen()).isFalse();
        }
    }

    @Test
    void synOnPartialDataFrameCountsOnce() {
        try (YamuxPair p = new YamuxPair()) {
            ByteBuf f = frame(YamuxFrame.TYPE_DATA, YamuxFrame.FLAG_SYN, 1, 100, 100);
            p.serverCh.writeInbound(f.readRetainedSlice(50));
            p.serverCh.writeInbound(f);
            assertThat(p.serverCh.isOpen()).isTrue();
            assertThat(p.serverInbound).hasSize(1);
            assertThat(p.serverInbound.get(0).read().join()).hasSize(100);
        }
    }
}
