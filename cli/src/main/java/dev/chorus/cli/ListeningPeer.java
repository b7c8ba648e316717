package dev.chorus.cli;

import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.host.HostConfig;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.gossip.multiaddr.MultiaddrException;
import dev.chorus.node.setup.UserError;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A host that serves for a diagnostic command ({@code p2p listen}, {@code p2p pubsub}) until its duration ends or
 * the JVM is asked to stop (Ctrl-C, SIGTERM), announced and closed with one JSON line each: {@code listening} (with
 * the full addresses) once the command's services are up, {@code stopped} once everything is closed. On a signal,
 * the JVM's exit waits (up to 15 s) for that close, so the {@code stopped} line is written.
 */
final class ListeningPeer {

    /** What a command runs on the host: set up before the {@code listening} line, closed before the host. */
    @FunctionalInterface
    interface Services {
        AutoCloseable start(Host host) throws Exception;
    }

    private ListeningPeer() {}

    /** Checks {@code --duration} (seconds, null for no limit). */
    static void checkDuration(Double duration) {
        if (duration != null && (!(duration > 0) || duration > 1e9)) {
            throw new UserError("--duration must be a positive number of seconds, got " + duration);
        }
    }

    /** Parses listen addresses ({@code DEFAULT_LISTEN} when none), each a TCP address; bad ones are user errors. */
    static List<Multiaddr> listenAddrs(List<String> texts) {
        List<Multiaddr> addrs = new ArrayList<>();
        for (String text : texts == null ? List.of(P2pCommand.DEFAULT_LISTEN) : texts) {
            Multiaddr a = P2pClient.parseAddr(text);
            try {
                a.withoutPeerId().toTcpSocketAddress();
            } catch (MultiaddrException e) {
                throw new UserError(e.getMessage(), e);
            }
            addrs.add(a);
        }
        return addrs;
    }

    /**
     * Starts a host with the key in {@code keyFile} (ephemeral when null) on {@code addrs}, starts {@code services}
     * on it, prints {@code listening}, serves until {@code duration} seconds pass (null: until a signal), then closes
     * the services and the host and prints {@code stopped}.
     */
    static void serve(Path keyFile, List<Multiaddr> addrs, Double duration, PrintWriter out, Services services)
            throws Exception {
        Host host;
        try {
            host = Host.start(HostConfig.defaults(P2pClient.identity(keyFile)).withListenAddrs(addrs))
                    .join();
        } catch (CompletionException e) {
            Throwable cause = e;
            while (cause instanceof CompletionException && cause.getCause() != null) {
                cause = cause.getCause();
            }
            throw new UserError(
                    "cannot listen on " + addrs + ": " + dev.chorus.gossip.transport.TcpTransport.reason(cause), cause);
        }
        CountDownLatch stop = new CountDownLatch(1);
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = Thread.ofPlatform().unstarted(() -> {
            stop.countDown();
            try {
                stopped.await(15, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        boolean hookAdded = false;
        AutoCloseable running = null;
        try {
            running = services.start(host);
            Runtime.getRuntime().addShutdownHook(hook);
            hookAdded = true;
            P2pCommand.jsonLine(out, w -> {
                w.member("event", "listening");
                w.member("peerId", host.peerId().toBase58());
                P2pCommand.stringArray(w, "addrs", host.listenAddrs());
            });
            if (duration == null) {
                stop.await();
            } else {
                stop.await((long) (duration * 1e9), TimeUnit.NANOSECONDS);
            }
        } finally {
            if (hookAdded) {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException e) {
                    // the JVM is shutting down (a signal); the hook waits for the close below
                }
            }
            try {
                if (running != null) {
                    running.close();
                }
                host.close();
                P2pCommand.jsonLine(out, w -> w.member("event", "stopped"));
            } finally {
                stopped.countDown();
            }
        }
    }
}
