package dev.chorus.cli.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Two js-libp2p gossipsub peers ({@code gossip/src/test/js/gossip-peer.js}, {@code @chainsafe/libp2p-gossipsub}
 * 14.1.2, StrictSign) in child processes, connected on loopback: the publisher times its own round trips and floods
 * ({@code pingBench}, {@code floodBench}), so no clock is shared between processes. {@link #close()} stops both.
 */
public final class JsGossipsubPair implements GossipsubPair {
    private static final long COMMAND_SECONDS = 300;

    private final List<JsPeerProcess> processes = new ArrayList<>();
    private final JsPeerProcess publisher;

    private JsGossipsubPair(Path dir) throws IOException, InterruptedException {
        try {
            JsPeerProcess answerer = spawn(dir);
            Map<String, Object> listening = answerer.await("listening", 60);
            @SuppressWarnings("unchecked")
            String addr = ((List<String>) listening.get("addrs")).getFirst();
            publisher = spawn(dir);
            String publisherId = (String) publisher.await("listening", 60).get("peerId");
            answerer.send("{\"cmd\":\"echo\",\"topic\":\"" + TOPIC + "\",\"replyTopic\":\"" + REPLY_TOPIC + "\"}");
            answerer.await("echoing", 30);
            publisher.send("{\"cmd\":\"listen\",\"replyTopic\":\"" + REPLY_TOPIC + "\"}");
            publisher.await("listening-for-replies", 30);
            publisher.send("{\"cmd\":\"dial\",\"addr\":\"" + addr + "\"}");
            publisher.await("dialed", 30);
            awaitSubscriber(answerer, REPLY_TOPIC, publisherId);
        } catch (IOException | InterruptedException | RuntimeException e) {
            close();
            throw e;
        }
    }

    public static JsGossipsubPair start(Path jsDir) throws IOException, InterruptedException {
        return new JsGossipsubPair(jsDir);
    }

    /** Why the js gossipsub peers cannot run from {@code dir}, or null when they can. */
    public static String unavailableReason(Path dir) {
        if (!java.nio.file.Files.isRegularFile(dir.resolve("gossip-peer.js"))) {
            return "no js gossipsub peer at " + dir + " (run from the repository root or pass --js-dir)";
        }
        return JsLibP2pPair.unavailableReason(dir);
    }

    private JsPeerProcess spawn(Path dir) throws IOException {
        JsPeerProcess p = JsPeerProcess.start(dir, "gossip-peer.js");
        processes.add(p);
        return p;
    }

    /** Waits until {@code at} knows that {@code peer} is subscribed to {@code topic}, so that no answer is lost. */
    private static void awaitSubscriber(JsPeerProcess at, String topic, String peer)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (true) {
            at.send("{\"cmd\":\"mesh\",\"topic\":\"" + topic + "\"}");
            Object subscribers = at.await("mesh", 30).get("subscribers");
            if (subscribers instanceof List<?> l && l.contains(peer)) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("the js publisher's subscription to " + topic + " did not arrive in 30 s");
            }
            Thread.sleep(10);
        }
    }

    @Override
    public double[] roundTrips(int count, int size) throws Exception {
        publisher.send("{\"cmd\":\"pingBench\",\"topic\":\"" + TOPIC + "\",\"replyTopic\":\"" + REPLY_TOPIC
                + "\",\"size\":" + size + ",\"count\":" + count + "}");
        List<?> micros = (List<?>) publisher.await("pingBench", COMMAND_SECONDS).get("micros");
        double[] out = new double[micros.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = ((Number) micros.get(i)).doubleValue();
        }
        return out;
    }

    @Override
    public double flood(int count, int size, int window, int ackEvery) throws Exception {
        publisher.send("{\"cmd\":\"floodBench\",\"topic\":\"" + TOPIC + "\",\"replyTopic\":\"" + REPLY_TOPIC
                + "\",\"size\":" + size + ",\"count\":" + count + ",\"window\":" + window + ",\"ackEvery\":"
                + ackEvery + "}");
        return ((Number) publisher.await("floodBench", COMMAND_SECONDS).get("ms")).doubleValue() / 1000;
    }

    @Override
    public void close() throws InterruptedException {
        for (JsPeerProcess p : processes) {
            p.close();
        }
    }
}
