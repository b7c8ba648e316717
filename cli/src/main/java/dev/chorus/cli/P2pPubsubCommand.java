package dev.chorus.cli;

import dev.chorus.gossip.discovery.BootstrapDialer;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.gossip.pubsub.Pubsub;
import dev.chorus.gossip.pubsub.PubsubConfig;
import dev.chorus.node.setup.UserError;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code chorus p2p pubsub}: a gossipsub peer for operators. Subscribes to one topic, prints every
 * message received as a JSON line, and publishes each line of standard input on the topic.
 */
@Command(
        name = "pubsub",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Runs a gossipsub peer on one topic: prints {\"event\":\"listening\",...} first, then"
                    + " {\"event\":\"message\",\"topic\":...,\"from\":...,\"seqno\":...,\"dataHex\":...} for every message"
                    + " received, and publishes each line of standard input (UTF-8, without the newline).",
            "Stops after --duration, or on SIGINT/SIGTERM."
        })
final class P2pPubsubCommand implements Callable<Integer> {

    /** Longest line of standard input published as one message (the default RPC limit is 1 MiB). */
    static final int MAX_LINE_CHARS = 512 * 1024;

    /** Where the lines to publish come from; standard input unless a test sets it. */
    InputStream input = System.in;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(
            names = "--listen",
            paramLabel = "MULTIADDR",
            description = "TCP address to listen on; repeatable. Default: " + P2pCommand.DEFAULT_LISTEN + ".")
    List<String> listen;

    @Option(
            names = "--key",
            paramLabel = "FILE",
            description = "Identity key file (see 'chorus keygen'). Default: a new ephemeral identity.")
    Path key;

    @Option(names = "--topic", paramLabel = "T", required = true, description = "The topic to join.")
    String topic;

    @Option(
            names = "--dial",
            paramLabel = "MULTIADDR",
            description = "Peer to connect to (ending in /p2p/ID); repeatable. Redialled with backoff when lost.")
    List<String> dial = new ArrayList<>();

    @Option(
            names = "--duration",
            paramLabel = "SECONDS",
            description = "Stop after this many seconds. Default: run until interrupted.")
    Double duration;

    @Override
    public Integer call() throws Exception {
        ListeningPeer.checkDuration(duration);
        if (topic.isBlank()) {
            throw new UserError("--topic must not be empty");
        }
        List<Multiaddr> listenAddrs = ListeningPeer.listenAddrs(listen);
        List<Multiaddr> targets = new ArrayList<>();
        for (String text : dial) {
            Multiaddr a = P2pClient.parseAddr(text);
            if (a.peerId().isEmpty()) {
                throw new UserError("--dial " + text + ": the address must end in /p2p/PEER_ID");
            }
            targets.add(a);
        }
        PrintWriter out = spec.commandLine().getOut();
        ListeningPeer.serve(key, listenAddrs, duration, out, host -> {
            Pubsub pubsub = Pubsub.start(host, PubsubConfig.defaults());
            BootstrapDialer dialer = null;
            try {
                pubsub.subscribe(topic, (message, id, from) -> {
                    String line = message.toJsonEvent();
                    synchronized (out) {
                        out.println(line);
                        out.flush();
                    }
                });
                if (!targets.isEmpty()) {
                    dialer = BootstrapDialer.start(host, targets, BootstrapDialer.Config.defaults());
                }
            } catch (RuntimeException e) {
                pubsub.close();
                throw e;
            }
            Thread reader =
                    Thread.ofPlatform().daemon().name("p2p-pubsub-stdin").start(() -> publishLines(pubsub, out));
            BootstrapDialer started = dialer;
            return () -> {
                reader.interrupt();
                if (started != null) {
                    started.close();
                }
                pubsub.close();
            };
        });
        return 0;
    }

    /** Publishes every line of the input until it ends; a failed publish is reported as a JSON line. */
    private void publishLines(Pubsub pubsub, PrintWriter out) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(input, StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.length() > MAX_LINE_CHARS) {
                    String reason = "line of " + line.length() + " characters exceeds " + MAX_LINE_CHARS;
                    P2pCommand.jsonLine(out, w -> {
                        w.member("event", "publishError");
                        w.member("reason", reason);
                    });
                    continue;
                }
                byte[] data = line.getBytes(StandardCharsets.UTF_8);
                try {
                    if (pubsub.publish(topic, data).join().recipients() == 0) {
                        PrintWriter err = spec.commandLine().getErr();
                        err.println("chorus: no peer on topic " + topic + " yet: that line reached nobody");
                        err.flush();
                    }
                } catch (CompletionException e) {
                    Throwable cause = e.getCause() == null ? e : e.getCause();
                    P2pCommand.jsonLine(out, w -> {
                        w.member("event", "publishError");
                        w.member("reason", String.valueOf(cause.getMessage()));
                    });
                }
            }
        } catch (IOException e) {
            // standard input closed under us: nothing more to publish
        }
    }
}
