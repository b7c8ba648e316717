package dev.chorus.cli;

import dev.chorus.gossip.host.Connection;
import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.host.HostConfig;
import dev.chorus.gossip.identity.KeyFile;
import dev.chorus.gossip.identity.KeyFileException;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.gossip.multiaddr.MultiaddrException;
import dev.chorus.gossip.multistream.UnsupportedProtocolException;
import dev.chorus.gossip.noise.PeerIdMismatchException;
import dev.chorus.gossip.pnet.PreSharedKey;
import dev.chorus.gossip.pnet.PreSharedKeyException;
import dev.chorus.node.setup.UserError;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A short-lived host that dials one peer for a diagnostic command ({@code p2p ping}, {@code identify},
 * {@code send}). Every wait is bounded by one deadline for the whole command, and every failure
 * becomes a one-line {@link UserError}: a bad address, an unreachable peer, a peer ID mismatch, a
 * protocol the peer does not serve, a timeout.
 */
final class P2pClient implements AutoCloseable {
    private final Host host;
    private final Multiaddr target;
    private final Duration timeout;
    private final long deadline;

    private P2pClient(Host host, Multiaddr target, Duration timeout) {
        this.host = host;
        this.target = target;
        this.timeout = timeout;
        this.deadline = System.nanoTime() + timeout.toNanos();
    }

    /** Parses {@code addr}, loads the key (or makes an ephemeral one) and starts a host that does not listen. */
    static P2pClient start(String addr, Path keyFile, double timeoutSeconds) {
        return start(addr, keyFile, null, timeoutSeconds);
    }

    /** As above, inside the private network of the key in {@code pskFile} when it is not null. */
    static P2pClient start(String addr, Path keyFile, Path pskFile, double timeoutSeconds) {
        if (!(timeoutSeconds > 0) || timeoutSeconds > 86_400) {
            throw new UserError("--timeout must be between 0 and 86400 seconds, got " + timeoutSeconds);
        }
        Multiaddr target = parseAddr(addr);
        try {
            target.withoutPeerId().toTcpSocketAddress();
        } catch (MultiaddrException e) {
            throw new UserError(e.getMessage(), e);
        }
        Duration timeout = Duration.ofNanos((long) (timeoutSeconds * 1e9));
        HostConfig config =
                privateNetwork(HostConfig.defaults(identity(keyFile)).withTimeouts(timeout, timeout, timeout), pskFile);
        Host host = Host.start(config).join();
        return new P2pClient(host, target, timeout);
    }

    /** {@code config} in the private network of the key in {@code pskFile}; {@code config} when it is null. */
    static HostConfig privateNetwork(HostConfig config, Path pskFile) {
        if (pskFile == null) {
            return config;
        }
        try {
            return config.withPrivateNetwork(PreSharedKey.load(pskFile));
        } catch (PreSharedKeyException e) {
            throw new UserError("--psk: " + e.getMessage(), e);
        }
    }

    static Multiaddr parseAddr(String text) {
        try {
            return Multiaddr.parse(text);
        } catch (MultiaddrException e) {
            throw new UserError(e.getMessage(), e);
        }
    }

    /** The key in {@code keyFile}, or a fresh ephemeral one when it is null. */
    static PrivateKey identity(Path keyFile) {
        if (keyFile == null) {
            return PrivateKey.generate();
        }
        try {
            return KeyFile.load(keyFile);
        } catch (KeyFileException e) {
            throw new UserError(e.getMessage(), e);
        }
    }

    Multiaddr target() {
        return target;
    }

    Host host() {
        return host;
    }

    /** Connects (verifying the {@code /p2p/} peer ID when the address has one). */
    Connection connect() {
        return await(host.connect(target), "connecting to " + target);
    }

    /** Waits for {@code f} until the command's deadline; failures become one-line user errors. */
    <T> T await(CompletableFuture<T> f, String what) {
        long left = deadline - System.nanoTime();
        try {
            return f.get(Math.max(0, left), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            f.cancel(false);
            throw new UserError(what + ": timed out, no answer within " + seconds(timeout) + " s (--timeout)", e);
        } catch (ExecutionException e) {
            throw failure(what, e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UserError(what + ": interrupted", e);
        }
    }

    private UserError failure(String what, Throwable cause) {
        while (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return switch (cause) {
            case PeerIdMismatchException m ->
                new UserError(
                        "peer ID mismatch: dialed " + m.expected() + " at " + target.withoutPeerId()
                                + " but the remote is " + m.actual(),
                        m);
            case UnsupportedProtocolException u ->
                new UserError(target + " does not support " + String.join(", ", u.proposed()), u);
            case TimeoutException t -> new UserError(what + ": timed out (" + t.getMessage() + ")", t);
            case MultiaddrException m -> new UserError(m.getMessage(), m);
            case IOException io
            when what.startsWith("connecting") ->
                new UserError(
                        "cannot reach " + target + ": " + (refused(io) ? "connection refused" : io.getMessage()), io);
            default -> new UserError(what + " failed: " + cause.getMessage(), cause);
        };
    }

    private static boolean refused(Throwable t) {
        for (; t != null; t = t.getCause()) {
            if (t instanceof java.net.ConnectException
                    && String.valueOf(t.getMessage())
                            .toLowerCase(java.util.Locale.ROOT)
                            .contains("refused")) {
                return true;
            }
        }
        return false;
    }

    static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? Long.toString(d.toSeconds()) : Double.toString(d.toMillis() / 1000.0);
    }

    @Override
    public void close() {
        host.close();
    }
}
