package dev.chorus.cli.bench;

import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.host.HostConfig;
import dev.chorus.gossip.identity.PeerId;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.libcrypto.CryptoMode;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.gossip.pubsub.Pubsub;
import dev.chorus.gossip.pubsub.PubsubConfig;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Two Chorus hosts in this JVM, each with its own I/O threads and gossipsub with the node's defaults (StrictSign, every
 * message signed and verified), connected on loopback.
 */
public final class JavaGossipsubPair implements GossipsubPair {
    private static final long REPLY_SECONDS = 30;

    private final Host publisherHost;
    private final Host answererHost;
    private final Pubsub publisher;
    private final Pubsub answerer;
    private final Map<Long, CompletableFuture<Void>> waiting = new ConcurrentHashMap<>();
    private final SplittableRandom random = new SplittableRandom(11);
    private long nextSequence;
    /** The bytes every message of the current size carries after its head: random, drawn once. */
    private byte[] payload = new byte[0];

    /** Both hosts choose their Noise transport's cipher by {@code crypto}. */
    public JavaGossipsubPair(CryptoMode crypto) throws Exception {
        answererHost = Host.start(HostConfig.defaults(PrivateKey.generate())
                        .withListenAddrs(List.of(Multiaddr.parse("/ip4/127.0.0.1/tcp/0")))
                        .withCrypto(crypto))
                .join();
        publisherHost = Host.start(HostConfig.defaults(PrivateKey.generate()).withCrypto(crypto))
                .join();
        answerer = Pubsub.start(answererHost, PubsubConfig.defaults());
        publisher = Pubsub.start(publisherHost, PubsubConfig.defaults());
        answerer.subscribe(TOPIC, (message, id, from) -> {
            byte[] answer = GossipsubPair.answer(message.data());
            if (answer != null) {
                answerer.publish(REPLY_TOPIC, answer);
            }
        });
        publisher.subscribe(REPLY_TOPIC, (message, id, from) -> {
            CompletableFuture<Void> w = waiting.remove(GossipsubPair.sequence(message.data()));
            if (w != null) {
                w.complete(null);
            }
        });
        publisherHost.connect(answererHost.listenAddrs().getFirst()).join();
        awaitSubscribed(publisher, TOPIC, answererHost.peerId());
        awaitSubscribed(answerer, REPLY_TOPIC, publisherHost.peerId());
    }

    private static void awaitSubscribed(Pubsub at, String topic, PeerId peer) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!at.topicPeers(topic).get(10, TimeUnit.SECONDS).contains(peer)) {
            if (System.nanoTime() > deadline) {
                throw new IOException("the other Java node's subscription to " + topic + " did not arrive in 30 s");
            }
            Thread.sleep(10);
        }
    }

    private byte[] message(byte kind, long sequence, int size) {
        int n = Math.max(HEAD_BYTES, size);
        if (payload.length != n) {
            payload = new byte[n];
            random.nextBytes(payload);
        }
        byte[] b = payload.clone();
        b[0] = kind;
        ByteBuffer.wrap(b, 1, 8).putLong(sequence);
        return b;
    }

    /** Publishes a message of {@code kind}; the future completes with its answer (never, for {@link #QUIET}). */
    private CompletableFuture<Void> publish(byte kind, int size) {
        long sequence = nextSequence++;
        CompletableFuture<Void> answered = new CompletableFuture<>();
        if (kind != QUIET) {
            waiting.put(sequence, answered);
        }
        byte[] m = message(kind, sequence, size);
        publisher.publish(TOPIC, m).whenComplete((r, err) -> {
            if (err != null) {
                answered.completeExceptionally(err);
            }
        });
        return answered;
    }

    @Override
    public double[] roundTrips(int count, int size) throws Exception {
        double[] micros = new double[count];
        for (int i = 0; i < count; i++) {
            long t0 = System.nanoTime();
            publish(ECHO, size).get(REPLY_SECONDS, TimeUnit.SECONDS);
            micros[i] = (System.nanoTime() - t0) / 1e3;
        }
        return micros;
    }

    @Override
    public double flood(int count, int size, int window, int ackEvery) throws Exception {
        Semaphore permits = new Semaphore(window);
        AtomicInteger covered = new AtomicInteger();
        CompletableFuture<Void> last = null;
        long t0 = System.nanoTime();
        for (int i = 0; i < count; i++) {
            if (!permits.tryAcquire(REPLY_SECONDS, TimeUnit.SECONDS)) {
                throw new IOException("no acknowledgement within " + REPLY_SECONDS + " s");
            }
            if ((i + 1) % ackEvery == 0 || i == count - 1) {
                int through = i + 1;
                last = publish(ACK, size).thenRun(() -> {
                    int before = covered.getAndAccumulate(through, Math::max);
                    if (through > before) {
                        permits.release(through - before);
                    }
                });
            } else {
                publish(QUIET, size);
            }
        }
        last.get(REPLY_SECONDS, TimeUnit.SECONDS);
        return (System.nanoTime() - t0) / 1e9;
    }

    @Override
    public void close() {
        publisher.close();
        answerer.close();
        publisherHost.close();
        answererHost.close();
    }
}
