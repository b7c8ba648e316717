package dev.chorus.cli.bench;

import dev.chorus.gossip.host.Connection;
import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.host.HostConfig;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.libcrypto.CryptoMode;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.gossip.protocol.Sink;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * One stream across the two implementations: a Java host (one I/O thread, serving the counting sink) sends to a
 * js-libp2p peer's sink and a js-libp2p peer sends to the Java host's, with js to js beside them as the reference.
 * The js peers count without hashing ({@code peer.js --count-only}), as the Java sink does. {@link #close()} stops
 * the host and both js processes.
 */
public final class InteropThroughput implements AutoCloseable {
    private final Host java;
    private final JsLibP2pPair js;
    private Connection toJs;
    private int reconnects;
    private final String javaAddr;

    private InteropThroughput(Host java, JsLibP2pPair js) {
        this.java = java;
        this.js = js;
        this.javaAddr = java.listenAddrs().getFirst().withPeerId(java.peerId()).toString();
        this.toJs = java.connect(Multiaddr.parse(js.receiverAddr())).join();
    }

    /** Starts the Java host with {@code crypto} as its Noise cipher, and the two js peers from {@code jsDir}. */
    public static InteropThroughput start(Path jsDir, CryptoMode crypto) throws IOException, InterruptedException {
        Host host = Host.start(HostConfig.defaults(PrivateKey.generate())
                        .withListenAddrs(List.of(Multiaddr.parse("/ip4/127.0.0.1/tcp/0")))
                        .withCrypto(crypto))
                .join();
        host.setHandler(Sink.ID, LibP2pThroughput.countingSink());
        JsLibP2pPair pair = null;
        try {
            pair = JsLibP2pPair.start(jsDir);
            return new InteropThroughput(host, pair);
        } catch (IOException | InterruptedException | RuntimeException e) {
            host.close();
            if (pair != null) {
                pair.close();
            }
            throw e;
        }
    }

    /**
     * Seconds for the Java host to send {@code bytes} to the js sink, from the first write to the count. A connection
     * the js peer has closed (before the transfer, or while its stream opened) is dialled again and the transfer
     * made on the new one, and counted ({@link #reconnects()}).
     */
    public double javaToJs(long bytes, int chunk) throws Exception {
        if (!toJs.isOpen()) {
            reconnect();
        }
        try {
            return LibP2pThroughput.send(toJs, bytes, chunk);
        } catch (java.util.concurrent.ExecutionException e) {
            if (toJs.isOpen()) {
                throw e; // a transfer that failed on a live connection is the benchmark's to report
            }
            reconnect(); // closed by the js peer while the stream opened: once more, on a new connection
            return LibP2pThroughput.send(toJs, bytes, chunk);
        }
    }

    private void reconnect() {
        reconnects++;
        toJs = java.connect(Multiaddr.parse(js.receiverAddr())).join();
    }

    /** How many times the connection to the js sink was found closed before a transfer and dialled again. */
    public int reconnects() {
        return reconnects;
    }

    /** Seconds for the js sender to send {@code bytes} to the Java host's sink, as the js sender times it. */
    public double jsToJava(long bytes, int chunk) throws IOException, InterruptedException {
        return js.runTo(javaAddr, bytes, chunk);
    }

    /** Seconds for one js peer to send {@code bytes} to the other, as the js sender times it. */
    public double jsToJs(long bytes, int chunk) throws IOException, InterruptedException {
        return js.run(bytes, chunk);
    }

    @Override
    public void close() throws InterruptedException {
        try {
            java.close();
        } finally {
            js.close();
        }
    }
}
