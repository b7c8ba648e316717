package dev.chorus.gossip.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.gossip.core.Stream;
import dev.chorus.gossip.host.Connection;
import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.host.HostConfig;
import dev.chorus.gossip.identity.PeerId;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.gossip.protocol.Echo;
import dev.chorus.gossip.protocol.IdentifyInfo;
import dev.chorus.gossip.protocol.Ping;
import dev.chorus.gossip.protocol.Sink;
import dev.chorus.gossip.record.PeerRecord;
import dev.chorus.testsupport.TestLog;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Java host against a real js-libp2p node (versions pinned in src/test/js/package.json), both
 * directions. Skipped, with instructions, when Node.js or the js packages are missing.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class JsInteropTest {
    static final long BIG = 64L * 1024 * 1024;

    private JsPeer js;
    private Host host;
    private final BlockingQueue<Sink.Received> sunk = new LinkedBlockingQueue<>();
    private Multiaddr jsAddr;
    private PeerId jsPeer;

    @BeforeEach
    void start() throws Exception {
        JsPeer.assumeAvailable();
        js = JsPeer.start();
        String listening = js.await("listening", 60);
        jsAddr = Multiaddr.parse(JsPeer.array(listening, "addrs").get(0));
        jsPeer = PeerId.parse(JsPeer.field(listening, "peerId"));
    }

    private void startHost(boolean inlineMuxers) {
        startHost(inlineMuxers, true);
    }

    /** A Java host; {@code lazy}: its streams to a peer whose identify listed the protocol are proposed lazily. */
    private void startHost(boolean inlineMuxers, boolean lazy) {
        host = Host.start(HostConfig.defaults(PrivateKey.generate())
                        .withListenAddrs(List.of(Multiaddr.parse("/ip4/127.0.0.1/tcp/0")))
                        .withInlineMuxers(inlineMuxers)
                        .withLazyNegotiation(lazy)
                        .withGracePeriod(Duration.ofMillis(500)))
                .join();
        host.setHandler(Echo.ID, Echo.handler());
        host.setHandler(Sink.ID, Sink.handler(sunk::add));
    }

    @AfterEach
    void stop() throws Exception {
        if (host != null) {
            host.close();
        }
        if (js != null) {
            js.close();
        }
    }

    @Test
    void javaDialsJs() throws Exception {
        startHost(true);
        runJavaDialsJs();
    }

    @Test
    void javaDialsJsWithMultistreamMuxerNegotiation() throws Exception {
        startHost(false, false); // and every stream negotiated in full before it is used
        runJavaDialsJs();
    }

    private void runJavaDialsJs() throws Exception {
        Connection c = host.connect(jsAddr).get(20, TimeUnit.SECONDS);
        assertThat(c.remotePeer()).isEqualTo(jsPeer);

        IdentifyInfo info = c.identify().get(20, TimeUnit.SECONDS);
        assertThat(info.peerId()).isEqualTo(jsPeer);
        assertThat(info.agentVersion()).isEqualTo("chorus-interop-js/0.1.0");
        assertThat(info.protocolVersion()).isEqualTo("ipfs/0.1.0");
        assertThat(info.protocols()).contains("/ipfs/id/1.0.0", Ping.ID, Echo.ID, Sink.ID);
        assertThat(info.listenAddrs()).contains(jsAddr.withoutPeerId());
        // js's signed peer record verifies here, names js and lists its address (RFC 0002, 0003).
        assertThat(info.signedPeerRecord()).isNotNull();
        PeerRecord jsRecord = PeerRecord.open(info.signedPeerRecord());
        assertThat(jsRecord.peerId()).isEqualTo(jsPeer);
        assertThat(jsRecord.addresses()).contains(jsAddr.withoutPeerId());
        assertThat(host.peerRecord(jsPeer)).hasValue(info.signedPeerRecord());

        List<Duration> rtts = host.ping(jsPeer, 5).get(20, TimeUnit.SECONDS);
        TestLog.figures("java->js ping RTTs (ms): "
                + rtts.stream().map(d -> d.toNanos() / 1e6).toList());
        assertThat(rtts).hasSize(5);

        byte[] data = new byte[1024 * 1024];
        new Random(1).nextBytes(data);
        Stream echo = host.newStream(jsPeer, Echo.ID).get(20, TimeUnit.SECONDS);
        // With lazy negotiation on, js's identify listed echo: the data follows the proposal without a round trip.
        assertThat(Connection.isPipelined(echo))
                .isEqualTo(host.config().upgrade().lazyNegotiation());
        assertThat(Echo.echo(echo, data).get(30, TimeUnit.SECONDS)).isEqualTo(data);

        Stream sink = host.newStream(jsPeer, Sink.ID).get(20, TimeUnit.SECONDS);
        Sink.Result r = Sink.send(sink, BIG, 7).get(90, TimeUnit.SECONDS);
        String jsSide = js.await("sink", 30);
        TestLog.figures(
                "java->js sink: %d bytes in %d ms (%.1f MiB/s)%n",
                r.bytesSent(), r.elapsed().toMillis(), r.mibPerSecond());
        assertThat(r.bytesAcknowledged()).isEqualTo(BIG);
        assertThat(JsPeer.field(jsSide, "bytes")).isEqualTo(Long.toString(BIG));
        assertThat(JsPeer.field(jsSide, "sha256")).isEqualTo(r.sha256());
        assertThat(JsPeer.field(jsSide, "peer")).isEqualTo(host.peerId().toBase58());
    }

    @Test
    void jsDialsJavaWithMultistreamMuxerNegotiation() throws Exception {
        startHost(false); // Java offers no inline muxer, so js negotiates yamux with multistream-select
        String javaAddr = host.listenAddrs().get(0).toString();
        js.send("{\"cmd\":\"echo\",\"addr\":\"" + javaAddr + "\",\"bytes\":100000}");
        String echo = js.await("echo", 60);
        assertThat(JsPeer.field(echo, "equal")).isEqualTo("true");
        assertThat(host.connection(jsPeer).identify().get(20, TimeUnit.SECONDS).peerId())
                .isEqualTo(jsPeer);
    }

    @Test
    void jsDialsJava() throws Exception {
        startHost(true);
        String javaAddr = host.listenAddrs().get(0).toString();

        js.send("{\"cmd\":\"identify\",\"addr\":\"" + javaAddr + "\"}");
        String id = js.await("identify", 30);
        assertThat(JsPeer.field(id, "peer")).isEqualTo(host.peerId().toBase58());
        assertThat(JsPeer.field(id, "agentVersion")).isEqualTo("chorus/0.1.0");
        assertThat(JsPeer.array(id, "protocols")).contains("/ipfs/id/1.0.0", Ping.ID, Echo.ID, Sink.ID);
        assertThat(JsPeer.array(id, "listenAddrs"))
                .contains(host.listenAddrs().get(0).withoutPeerId().toString());
        // js verified this node's signed peer record and read its addresses from it.
        assertThat(JsPeer.field(id, "recordSeq")).matches("[1-9][0-9]*");
        assertThat(JsPeer.array(id, "recordAddrs"))
                .contains(host.listenAddrs().get(0).withoutPeerId().toString());

        // Java identified the js node on the same connection.
        Connection c = host.connection(jsPeer);
        assertThat(c).isNotNull();
        assertThat(c.direction()).isEqualTo(Connection.Direction.INBOUND);
        assertThat(c.identify().get(20, TimeUnit.SECONDS).agentVersion()).isEqualTo("chorus-interop-js/0.1.0");

        js.send("{\"cmd\":\"ping\",\"addr\":\"" + javaAddr + "\",\"count\":5}");
        List<String> rtts = JsPeer.array(js.await("ping", 30), "rtts");
        TestLog.figures("js->java ping RTTs (ms): " + rtts);
        assertThat(rtts).hasSize(5);

        js.send("{\"cmd\":\"echo\",\"addr\":\"" + javaAddr + "\",\"bytes\":1048576}");
        String echo = js.await("echo", 60);
        assertThat(JsPeer.field(echo, "bytes")).isEqualTo("1048576");
        assertThat(JsPeer.field(echo, "equal")).isEqualTo("true");
        // js proposing lazily (negotiateFully: false): its data arrives behind the proposal, in the same frames.
        js.send("{\"cmd\":\"echo\",\"addr\":\"" + javaAddr + "\",\"bytes\":300000,\"lazy\":true}");
        String lazyEcho = js.await("echo", 60);
        assertThat(JsPeer.field(lazyEcho, "bytes")).isEqualTo("300000");
        assertThat(JsPeer.field(lazyEcho, "equal")).isEqualTo("true");

        js.send("{\"cmd\":\"sink\",\"addr\":\"" + javaAddr + "\",\"bytes\":" + BIG + "}");
        String sent = js.await("sinkSent", 90);
        Sink.Received got = sunk.poll(10, TimeUnit.SECONDS);
        TestLog.figures("js->java sink: " + sent);
        assertThat(got).isNotNull();
        assertThat(got.bytes()).isEqualTo(BIG);
        assertThat(got.peer()).isEqualTo(jsPeer);
        assertThat(JsPeer.field(sent, "acknowledged")).isEqualTo(Long.toString(BIG));
        assertThat(JsPeer.field(sent, "sha256")).isEqualTo(got.sha256());
    }
}
