package dev.chorus.gossip.pubsub;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.gossip.core.Stream;
import dev.chorus.gossip.encoding.Varint;
import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.host.HostConfig;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.multiaddr.Multiaddr;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Pubsub over real hosts on loopback: streams, framing, mesh forming, forwarding, and a bad frame. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PubsubTest {
    static final String TOPIC = "chorus/test";
    private final List<Host> hosts = new ArrayList<>();
    private final List<Pubsub> pubsubs = new ArrayList<>();

    private Host host() {
        Host h = Host.start(HostConfig.defaults(PrivateKey.generate())
                        .withListenAddrs(List.of(Multiaddr.parse("/ip4/127.0.0.1/tcp/0")))
                        .withGracePeriod(Duration.ofMillis(200)))
                .join();
        hosts.add(h);
        return h;
    }

    private Pubsub pubsub(Host h) {
        Pubsub p = Pubsub.start(h, PubsubConfig.defaults());
        pubsubs.add(p);
        return p;
    }

    @AfterEach
    void stop() {
        pubsubs.forEach(Pubsub::close);
        hosts.forEach(Host::close);
    }

    @Test
    void messagesTravelAlongAChainOfThreeHosts() throws Exception {
        Host a = host(), b = host(), c = host();
        Pubsub pa = pubsub(a), pb = pubsub(b), pc = pubsub(c);
        BlockingQueue<PubsubMessage> atC = new LinkedBlockingQueue<>();
        BlockingQueue<PubsubMessage> atA = new LinkedBlockingQueue<>();
        pa.subscribe(TOPIC, (m, id, from) -> atA.add(m));
        pb.subscribe(TOPIC, (m, id, from) -> {});
        pc.subscribe(TOPIC, (m, id, from) -> atC.add(m));
        a.connect(b.listenAddrs().get(0)).get(10, TimeUnit.SECONDS);
        c.connect(b.listenAddrs().get(0)).get(10, TimeUnit.SECONDS);
        awaitMesh(pb, 2);
        awaitMesh(pa, 1);
        awaitMesh(pc, 1);

        GossipsubRouter.PublishResult r =
                pa.publish(TOPIC, "hello".getBytes(StandardCharsets.UTF_8)).get(5, TimeUnit.SECONDS);
        assertThat(r.recipients()).isEqualTo(1);
        PubsubMessage got = atC.poll(10, TimeUnit.SECONDS);
        assertThat(got).isNotNull();
        assertThat(new String(got.data(), StandardCharsets.UTF_8)).isEqualTo("hello");
        assertThat(got.author()).isEqualTo(a.peerId());
        assertThat(SignaturePolicy.STRICT_SIGN.check(got)).isNull();

        pc.publish(TOPIC, "back".getBytes(StandardCharsets.UTF_8)).get(5, TimeUnit.SECONDS);
        PubsubMessage back = atA.poll(10, TimeUnit.SECONDS);
        assertThat(back).isNotNull();
        assertThat(back.author()).isEqualTo(c.peerId());
        assertThat(atA.poll(300, TimeUnit.MILLISECONDS))
                .as("our own message is not delivered to us")
                .isNull();
    }

    @Test
    void anOversizeFrameResetsTheStreamPenalizesAndTheNodeKeepsWorking() throws Exception {
        Host a = host(), b = host(), attacker = host();
        Pubsub pa = pubsub(a), pb = pubsub(b);
        BlockingQueue<PubsubMessage> atB = new LinkedBlockingQueue<>();
        pa.subscribe(TOPIC, (m, id, from) -> {});
        pb.subscribe(TOPIC, (m, id, from) -> atB.add(m));
        a.connect(b.listenAddrs().get(0)).get(10, TimeUnit.SECONDS);
        awaitMesh(pb, 1);

        Stream s = attacker.newStream(b.listenAddrs().get(0), PubsubProtocol.MESHSUB_1_1.id())
                .get(10, TimeUnit.SECONDS);
        // Announces a 64 MiB RPC: refused on the length prefix, before anything is buffered.
        s.write(Varint.encode(64L << 20)).get(5, TimeUnit.SECONDS);
        // The reset may already be here when the next bytes go out: then that write fails with it.
        s.write(new byte[1000])
                .exceptionally(e -> {
                    Throwable cause = e instanceof java.util.concurrent.CompletionException ? e.getCause() : e;
                    assertThat(cause).isInstanceOf(dev.chorus.gossip.core.StreamResetException.class);
                    return null;
                })
                .get(5, TimeUnit.SECONDS);
        s.closeFuture().get(10, TimeUnit.SECONDS);
        awaitTrue(() -> pb.inspect(r -> r.behaviourPenalty(attacker.peerId())).join() >= 1);
        assertThat(pb.stats().join().rpcs().invalidRpcs()).isEqualTo(1);

        // A malformed but well-framed RPC is penalized and the stream stays usable.
        Stream s2 = attacker.newStream(b.listenAddrs().get(0), PubsubProtocol.MESHSUB_1_1.id())
                .get(10, TimeUnit.SECONDS);
        s2.write(new byte[] {2, 0x12, (byte) 0xff}).get(5, TimeUnit.SECONDS);
        awaitTrue(() -> pb.stats().join().rpcs().invalidRpcs() == 2);

        pa.publish(TOPIC, "still here".getBytes(StandardCharsets.UTF_8)).get(5, TimeUnit.SECONDS);
        PubsubMessage m = atB.poll(10, TimeUnit.SECONDS);
        assertThat(m).isNotNull();
        assertThat(new String(m.data(), StandardCharsets.UTF_8)).isEqualTo("still here");
    }

    static void awaitMesh(Pubsub p, int size) throws InterruptedException {
        awaitTrue(() -> p.meshPeers(TOPIC).join().size() >= size);
    }

    static void awaitTrue(java.util.function.BooleanSupplier cond) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within 15 s");
            }
            Thread.sleep(50);
        }
    }
}
