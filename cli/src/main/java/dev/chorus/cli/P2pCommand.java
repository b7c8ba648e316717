package dev.chorus.cli;

import dev.chorus.gossip.core.Stream;
import dev.chorus.gossip.host.Connection;
import dev.chorus.gossip.host.ConnectionListener;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.gossip.pnet.PreSharedKey;
import dev.chorus.gossip.pnet.PreSharedKeyException;
import dev.chorus.gossip.protocol.Echo;
import dev.chorus.gossip.protocol.IdentifyInfo;
import dev.chorus.gossip.protocol.Sink;
import dev.chorus.learning.json.JsonWriter;
import dev.chorus.node.setup.UserError;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code chorus p2p}: libp2p diagnostics for operators (listen, ping, identify, send), and private network keys. */
@Command(
        name = "p2p",
        mixinStandardHelpOptions = true,
        description = "libp2p diagnostics: run a test peer, ping, identify, and measure a transfer; make a private"
                + " network key.",
        subcommands = {
            P2pCommand.Listen.class,
            P2pCommand.Ping.class,
            P2pCommand.Identify.class,
            P2pCommand.Send.class,
            P2pPubsubCommand.class,
            P2pCommand.Psk.class
        })
final class P2pCommand implements Runnable {

    /** Loopback and a free port: a diagnostic peer is reachable from this machine only unless asked. */
    static final String DEFAULT_LISTEN = "/ip4/127.0.0.1/tcp/0";

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** One compact JSON object on its own line, flushed at once (other processes read it live). */
    static void jsonLine(PrintWriter out, Consumer<JsonWriter> body) {
        StringBuilder sb = new StringBuilder();
        JsonWriter w = JsonWriter.compact(sb);
        w.beginObject();
        body.accept(w);
        w.endObject();
        w.finish();
        synchronized (out) {
            out.println(sb);
            out.flush();
        }
    }

    static void stringArray(JsonWriter w, String name, List<?> values) {
        w.name(name).beginArray();
        for (Object v : values) {
            w.value(v.toString());
        }
        w.endArray();
    }

    static void nullableMember(JsonWriter w, String name, Object value) {
        if (value == null) {
            w.name(name).nullValue();
        } else {
            w.member(name, value.toString());
        }
    }

    // ---------------------------------------------------------------- listen

    @Command(
            name = "listen",
            mixinStandardHelpOptions = true,
            sortOptions = false,
            description = {
                "Runs a peer that serves identify, ping, /chorus/echo/1.0.0 and /chorus/sink/1.0.0.",
                "Prints {\"event\":\"listening\",\"peerId\":...,\"addrs\":[...]} first, then one JSON line per event"
                        + " (connection, disconnection, sink transfer). Stops after --duration, or on SIGINT/SIGTERM."
            })
    static final class Listen implements Callable<Integer> {
        @Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Option(
                names = "--listen",
                paramLabel = "MULTIADDR",
                description = "TCP address to listen on; repeatable. Default: " + DEFAULT_LISTEN
                        + " (loopback, a free port). Use /ip4/0.0.0.0/tcp/4001 to accept other machines.")
        List<String> listen;

        @Option(
                names = "--key",
                paramLabel = "FILE",
                description = "Identity key file (see 'chorus keygen'). Default: a new ephemeral identity.")
        Path key;

        @Option(
                names = "--duration",
                paramLabel = "SECONDS",
                description = "Stop after this many seconds. Default: run until interrupted.")
        Double duration;

        @Override
        public Integer call() throws Exception {
            ListeningPeer.checkDuration(duration);
            List<Multiaddr> addrs = ListeningPeer.listenAddrs(listen);
            PrintWriter out = spec.commandLine().getOut();
            ListeningPeer.serve(key, addrs, duration, out, host -> {
                host.setHandler(Echo.ID, Echo.handler());
                host.setHandler(
                        Sink.ID,
                        Sink.handler(r -> jsonLine(out, w -> {
                            w.member("event", "sink");
                            w.member("peerId", r.peer().toBase58());
                            w.member("bytes", r.bytes());
                            w.member("seconds", r.elapsed().toNanos() / 1e9);
                            w.member("sha256", r.sha256());
                        })));
                host.addConnectionListener(new ConnectionListener() {
                    @Override
                    public void connected(Connection c) {
                        jsonLine(out, w -> {
                            w.member("event", "connection");
                            w.member("peerId", c.remotePeer().toBase58());
                            w.member("direction", c.direction().name().toLowerCase(Locale.ROOT));
                            w.member("remoteAddr", c.remoteAddress().toString());
                        });
                    }

                    @Override
                    public void disconnected(Connection c) {
                        jsonLine(out, w -> {
                            w.member("event", "disconnected");
                            w.member("peerId", c.remotePeer().toBase58());
                            w.member("remoteAddr", c.remoteAddress().toString());
                        });
                    }
                });
                return () -> {};
            });
            return 0;
        }
    }

    // ---------------------------------------------------------------- ping

    /** Options every dialing sub-command shares. */
    abstract static class Dialing {
        @Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Parameters(
                index = "0",
                paramLabel = "MULTIADDR",
                description = "The peer, e.g. /ip4/127.0.0.1/tcp/4001/p2p/12D3KooW... (the /p2p/ part is checked"
                        + " in the handshake when present).")
        String addr;

        @Option(
                names = "--key",
                paramLabel = "FILE",
                description = "Identity key file. Default: a new ephemeral identity.")
        Path key;

        @Option(
                names = "--psk",
                paramLabel = "FILE",
                description = "The private network's key file (network.psk_file of the peer), when it runs in one.")
        Path psk;

        @Option(names = "--json", description = "Print one JSON object instead of a readable line.")
        boolean json;
    }

    @Command(
            name = "ping",
            mixinStandardHelpOptions = true,
            sortOptions = false,
            description = "Connects and measures round trips with /ipfs/ping/1.0.0.")
    static final class Ping extends Dialing implements Callable<Integer> {
        @Option(
                names = "--count",
                paramLabel = "N",
                description = "Pings to send (1..1000). Default: ${DEFAULT-VALUE}.")
        int count = 5;

        @Option(
                names = "--timeout",
                paramLabel = "SECONDS",
                description = "Time allowed for the whole command. Default: ${DEFAULT-VALUE}.")
        double timeout = 10;

        @Override
        public Integer call() {
            if (count < 1 || count > 1000) {
                throw new UserError("--count must be between 1 and 1000, got " + count);
            }
            try (P2pClient client = P2pClient.start(addr, key, psk, timeout)) {
                Connection c = client.connect();
                List<Duration> rtts = client.await(client.host().ping(c.remotePeer(), count), "pinging " + addr);
                double[] ms = rtts.stream().mapToDouble(d -> d.toNanos() / 1e6).toArray();
                double median = median(ms);
                PrintWriter out = spec.commandLine().getOut();
                if (json) {
                    jsonLine(out, w -> {
                        w.member("event", "ping");
                        w.member("peerId", c.remotePeer().toBase58());
                        w.member("addr", c.remoteAddress().toString());
                        w.name("rttsMs").beginArray();
                        for (double v : ms) {
                            w.value(v);
                        }
                        w.endArray();
                        w.member("medianMs", median);
                    });
                } else {
                    StringBuilder sb = new StringBuilder();
                    for (double v : ms) {
                        sb.append(sb.isEmpty() ? "" : " ").append(String.format(Locale.ROOT, "%.3f", v));
                    }
                    out.printf(
                            Locale.ROOT,
                            "ping %s: %d round trips, median %.3f ms (%s ms)%n",
                            c.remotePeer(),
                            ms.length,
                            median,
                            sb);
                    out.flush();
                }
            }
            return 0;
        }
    }

    static double median(double[] values) {
        double[] s = values.clone();
        Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }

    // ---------------------------------------------------------------- identify

    @Command(
            name = "identify",
            mixinStandardHelpOptions = true,
            sortOptions = false,
            description = "Connects and prints the remote's identify record (/ipfs/id/1.0.0).")
    static final class Identify extends Dialing implements Callable<Integer> {
        @Option(
                names = "--timeout",
                paramLabel = "SECONDS",
                description = "Time allowed for the whole command. Default: ${DEFAULT-VALUE}.")
        double timeout = 10;

        @Override
        public Integer call() {
            try (P2pClient client = P2pClient.start(addr, key, psk, timeout)) {
                Connection c = client.connect();
                IdentifyInfo info = client.await(c.identify(), "identifying " + addr);
                PrintWriter out = spec.commandLine().getOut();
                String peer = (info.peerId() != null ? info.peerId() : c.remotePeer()).toBase58();
                if (json) {
                    jsonLine(out, w -> {
                        w.member("event", "identify");
                        w.member("peerId", peer);
                        nullableMember(w, "agentVersion", info.agentVersion());
                        nullableMember(w, "protocolVersion", info.protocolVersion());
                        stringArray(w, "protocols", info.protocols());
                        stringArray(w, "listenAddrs", info.listenAddrs());
                        nullableMember(w, "observedAddr", info.observedAddr());
                    });
                } else {
                    out.printf(
                            "%s: agent %s, protocol version %s%n  protocols: %s%n  listen addresses: %s%n"
                                    + "  observed address: %s%n",
                            peer,
                            info.agentVersion(),
                            info.protocolVersion(),
                            String.join(" ", info.protocols()),
                            info.listenAddrs().isEmpty()
                                    ? "(none)"
                                    : String.join(
                                            " ",
                                            info.listenAddrs().stream()
                                                    .map(Multiaddr::toString)
                                                    .toList()),
                            info.observedAddr());
                    out.flush();
                }
            }
            return 0;
        }
    }

    // ---------------------------------------------------------------- send

    @Command(
            name = "send",
            mixinStandardHelpOptions = true,
            sortOptions = false,
            description = {
                "Sends bytes on one stream and checks what comes back: the count from /chorus/sink/1.0.0, or the"
                        + " bytes themselves from /chorus/echo/1.0.0. Prints bytes, seconds and MiB/s."
            })
    static final class Send extends Dialing implements Callable<Integer> {
        /** Echo keeps the sent and the returned bytes in memory, so it is capped lower. */
        static final long MAX_ECHO_BYTES = 256L << 20;

        static final long MAX_SINK_BYTES = 1L << 40;

        @Option(names = "--protocol", paramLabel = "ID", description = Sink.ID + " (default) or " + Echo.ID + ".")
        String protocol = Sink.ID;

        @Option(
                names = "--bytes",
                paramLabel = "N",
                description = "Bytes to send: a number, optionally with KiB, MiB or GiB. Default: 64MiB.")
        String bytes = "64MiB";

        @Option(
                names = "--seed",
                paramLabel = "S",
                description = "Seed of the pseudo-random payload. Default: ${DEFAULT-VALUE}.")
        long seed = 1;

        @Option(
                names = "--timeout",
                paramLabel = "SECONDS",
                description = "Time allowed for the whole command. Default: ${DEFAULT-VALUE}.")
        double timeout = 120;

        @Override
        public Integer call() {
            long n = parseBytes(bytes);
            boolean echo = protocol.equals(Echo.ID);
            if (!echo && !protocol.equals(Sink.ID)) {
                throw new UserError("--protocol must be " + Sink.ID + " or " + Echo.ID + ", got '" + protocol + "'");
            }
            long max = echo ? MAX_ECHO_BYTES : MAX_SINK_BYTES;
            if (n < 1 || n > max) {
                throw new UserError("--bytes must be between 1 and " + max + " for " + protocol + ", got " + n);
            }
            try (P2pClient client = P2pClient.start(addr, key, psk, timeout)) {
                Connection c = client.connect();
                Stream stream = client.await(c.newStream(protocol), "opening " + protocol);
                long acknowledged;
                String sha256 = null;
                long start = System.nanoTime();
                if (echo) {
                    byte[] data = new byte[(int) n];
                    new SplittableRandom(seed).nextBytes(data);
                    byte[] back = client.await(Echo.echo(stream, data), "echo of " + n + " bytes");
                    if (!Arrays.equals(back, data)) {
                        throw new UserError(c.remotePeer() + " echoed " + back.length + " bytes that differ from the "
                                + n + " bytes sent");
                    }
                    acknowledged = back.length;
                } else {
                    Sink.Result r = client.await(Sink.send(stream, n, seed), "sending " + n + " bytes");
                    acknowledged = r.bytesAcknowledged();
                    sha256 = r.sha256();
                    if (acknowledged != n) {
                        throw new UserError(
                                c.remotePeer() + " acknowledged " + acknowledged + " of the " + n + " bytes sent");
                    }
                }
                double seconds = (System.nanoTime() - start) / 1e9;
                double mibPerSecond = n / (1024.0 * 1024.0) / Math.max(seconds, 1e-9);
                PrintWriter out = spec.commandLine().getOut();
                String sha = sha256;
                if (json) {
                    jsonLine(out, w -> {
                        w.member("event", "send");
                        w.member("peerId", c.remotePeer().toBase58());
                        w.member("protocol", protocol);
                        w.member("bytes", n);
                        w.member("acknowledged", acknowledged);
                        w.member("seconds", seconds);
                        w.member("mibPerSecond", mibPerSecond);
                        if (sha != null) {
                            w.member("sha256", sha);
                        }
                    });
                } else {
                    out.printf(
                            Locale.ROOT,
                            "sent %d bytes to %s over %s in %.3f s: %.1f MiB/s%n",
                            n,
                            c.remotePeer(),
                            protocol,
                            seconds,
                            mibPerSecond);
                    out.flush();
                }
            }
            return 0;
        }
    }

    // ---------------------------------------------------------------- psk

    @Command(
            name = "psk",
            mixinStandardHelpOptions = true,
            description = {
                "Writes a new libp2p private network key (/key/swarm/psk/1.0.0/, base16) to a new file with mode 0600"
                        + " and prints its fingerprint. Refuses to overwrite an existing file.",
                "Give the same file to every node of the network (network.psk_file); go-libp2p and js-libp2p read it"
                        + " too."
            })
    static final class Psk implements Callable<Integer> {
        @Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Option(names = "--out", required = true, paramLabel = "FILE", description = "The key file to create.")
        Path out;

        @Override
        public Integer call() {
            PreSharedKey key = PreSharedKey.generate();
            try {
                key.write(out);
            } catch (PreSharedKeyException e) {
                throw new UserError(e.getMessage(), e);
            }
            PrintWriter w = spec.commandLine().getOut();
            w.println("wrote " + out + " (fingerprint " + key.fingerprint() + ")");
            w.flush();
            return 0;
        }
    }

    private static final Pattern BYTES =
            Pattern.compile("(\\d{1,19})\\s*(|B|KiB|MiB|GiB|K|M|G)", Pattern.CASE_INSENSITIVE);

    /** {@code 1048576}, {@code 64MiB}, {@code 1G} (binary multiples). */
    static long parseBytes(String text) {
        Matcher m = BYTES.matcher(text.trim());
        if (!m.matches()) {
            throw new UserError("--bytes: '" + text + "' is not a byte count (e.g. 1048576, 64MiB, 1GiB)");
        }
        int shift =
                switch (m.group(2).toUpperCase(Locale.ROOT)) {
                    case "K", "KIB" -> 10;
                    case "M", "MIB" -> 20;
                    case "G", "GIB" -> 30;
                    default -> 0;
                };
        try {
            long v = Long.parseLong(m.group(1));
            if (v > (Long.MAX_VALUE >> shift)) {
                throw new NumberFormatException();
            }
            return v << shift;
        } catch (NumberFormatException e) {
            throw new UserError("--bytes: '" + text + "' is too large");
        }
    }
}
