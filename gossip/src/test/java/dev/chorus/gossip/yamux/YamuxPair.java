package dev.chorus.gossip.yamux;

import dev.chorus.gossip.identity.PrivateKey;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/** A client and a server session on embedded channels, joined by {@link #pump()}; time is a manual clock. */
final class YamuxPair implements AutoCloseable {
    final AtomicLong clock = new AtomicLong(1_000_000_000L);
    final List<YamuxStream> clientInbound = new ArrayList<>();
    final List<YamuxStream> serverInbound = new ArrayList<>();
    final YamuxSession client;
    final YamuxSession server;
    final EmbeddedChannel clientCh;
    final EmbeddedChannel serverCh;

    YamuxPair(YamuxConfig config) {
        client = new YamuxSession(config, true, PrivateKey.generate().peerId(), clientInbound::add, clock::get);
        server = new YamuxSession(config, false, PrivateKey.generate().peerId(), serverInbound::add, clock::get);
        clientCh = new EmbeddedChannel(client);
        serverCh = new EmbeddedChannel(server);
    }

    YamuxPair() {
        this(YamuxConfig.defaults()
                .withInitialWindow(YamuxConfig.SPEC_INITIAL_WINDOW)
                .withKeepAliveInterval(java.time.Duration.ZERO));
    }

    void pump() {
        boolean moved = true;
        while (moved) {
            clientCh.runPendingTasks();
            serverCh.runPendingTasks();
            moved = move(clientCh, serverCh) | move(serverCh, clientCh);
        }
    }

    static boolean move(EmbeddedChannel from, EmbeddedChannel to) {
        boolean moved = false;
        ByteBuf b;
        while ((b = from.readOutbound()) != null) {
            moved = true;
            if (to.isOpen()) {
                to.writeInbound(b);
            } else {
                b.release();
            }
        }
        return moved;
    }

    static byte[] drainOutbound(EmbeddedChannel ch) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteBuf b;
        while ((b = ch.readOutbound()) != null) {
            byte[] a = new byte[b.readableBytes()];
            b.readBytes(a);
            b.release();
            out.writeBytes(a);
        }
        return out.toByteArray();
    }

    @Override
    public void close() {
        clientCh.finishAndReleaseAll();
        serverCh.finishAndReleaseAll();
    }
}
