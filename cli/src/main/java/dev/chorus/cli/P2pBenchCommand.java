package dev.chorus.cli;

import dev.chorus.cli.bench.CipherThroughput;
import dev.chorus.cli.bench.ExchangeCost;
import dev.chorus.cli.bench.GossipsubPair;
import dev.chorus.cli.bench.IdleConnectionMemory;
import dev.chorus.cli.bench.InteropThroughput;
import dev.chorus.cli.bench.JavaGossipsubPair;
import dev.chorus.cli.bench.JsGossipsubPair;
import dev.chorus.cli.bench.JsLibP2pPair;
import dev.chorus.cli.bench.LibP2pThroughput;
import dev.chorus.cli.bench.Measurement;
import dev.chorus.cli.bench.MeasurementReport;
import dev.chorus.cli.bench.RawTcpThroughput;
import dev.chorus.cli.bench.StreamChurn;
import dev.chorus.gossip.identity.Ed25519Engines;
import dev.chorus.gossip.libcrypto.CryptoMode;
import dev.chorus.gossip.libcrypto.LibCryptoUnavailableException;
import dev.chorus.gossip.noise.AeadProvider;
import dev.chorus.gossip.noise.NoiseCiphers;
import dev.chorus.node.setup.UserError;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code chorus bench p2p}: one-stream throughput over loopback (Java libp2p, js-libp2p and raw TCP
 * side by side, their runs interleaved so that load from other processes hits all three alike), the
 * JDK cipher's ceiling, stream churn on one connection, and the memory of a host with idle connections.
 */
@Command(
        name = "p2p",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "libp2p benchmarks on loopback: one-stream throughput (Java, js-libp2p, raw TCP, interleaved),"
                    + " ChaCha20-Poly1305 (the JDK's and OpenSSL's), streams opened and closed per second,"
                    + " idle-connection memory, model exchanges, gossipsub round trips and rates (Java and js-libp2p)."
                    + " The table ends with the line 'java/js=R java/raw=R cipher=NAME'.",
            "Needs Node.js 20+ and 'npm ci' in gossip/src/test/js for the js-libp2p figure (else it is skipped)."
        })
final class P2pBenchCommand implements Callable<Integer> {
    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--bytes", paramLabel = "N", description = "Bytes per transfer. Default: 64MiB.")
    String bytes = "64MiB";

    @Option(names = "--runs", paramLabel = "N", description = "Timed runs per figure. Default: ${DEFAULT-VALUE}.")
    int runs = 5;

    @Option(
            names = "--warmup",
            paramLabel = "N",
            description = "Untimed rounds first (JIT and V8 warm-up). Default: ${DEFAULT-VALUE}.")
    int warmup = 10;

    @Option(names = "--chunk", paramLabel = "N", description = "Size of each write. Default: 64KiB.")
    String chunk = "64KiB";

    @Option(
            names = "--streams",
            paramLabel = "N",
            description = "Streams opened and closed per churn figure. Default: ${DEFAULT-VALUE}.")
    int streams = 10_000;

    @Option(
            names = "--stream-concurrency",
            paramLabel = "N",
            description = "Streams in flight for the concurrent churn figure (1..32). Default: ${DEFAULT-VALUE}.")
    int concurrency = 16;

    @Option(
            names = "--connections",
            paramLabel = "N",
            description = "Idle connections for the memory figure. Default: ${DEFAULT-VALUE}.")
    int connections = 100;

    @Option(
            names = "--js-dir",
            paramLabel = "DIR",
            description = "The js-libp2p peer (peer.js with node_modules). Default: ${DEFAULT-VALUE}.")
    Path jsDir = Path.of("gossip/src/test/js");

    @Option(
            names = "--crypto",
            paramLabel = "MODE",
            description = "The Java hosts' Noise cipher and Ed25519, as network.crypto: auto, jdk or openssl."
                    + " Default: ${DEFAULT-VALUE}.")
    String crypto = "auto";

    @Option(
            names = "--exchanges",
            paramLabel = "N",
            description = "Model exchanges per round of the exchange-cost figures. Default: ${DEFAULT-VALUE}.")
    int exchanges = 2000;

    @Option(
            names = "--messages",
            paramLabel = "N",
            description = "Gossipsub messages per run of the pubsub figures. Default: ${DEFAULT-VALUE}.")
    int messages = 500;

    @Option(
            names = "--message-size",
            paramLabel = "N",
            description = "Size of each gossipsub message of the pubsub figures. Default: 100KiB.")
    String messageSize = "100KiB";

    @Option(
            names = "--sections",
            paramLabel = "LIST",
            split = ",",
            description = "Which figures to measure: cipher, throughput, interop, churn, memory, exchange, pubsub."
                    + " Default: all.")
    List<String> sections = new ArrayList<>(SECTIONS);

    private static final List<String> SECTIONS =
            List.of("cipher", "throughput", "interop", "churn", "memory", "exchange", "pubsub");

    /** {@link #messageSize} in bytes, once checked. */
    private long messageBytes;

    /** Messages sent at most past the last acknowledged one in the pubsub rate figure. */
    static final int PUBSUB_WINDOW = 32;

    /** One message in this many is acknowledged in the pubsub rate figure (and the last). */
    static final int PUBSUB_ACK_EVERY = 8;

    @Option(names = "--no-js", description = "Skip the js-libp2p figure.")
    boolean noJs;

    @Option(names = "--json", description = "Print one JSON object instead of the table.")
    boolean json;

    @Option(
            names = "--out",
            paramLabel = "FILE",
            description = "Also write the results to FILE (repeatable): CSV when it ends in .csv, else JSON.")
    List<Path> out = new ArrayList<>();

    /** The Java hosts' Noise cipher, as chosen at the start of the run. */
    private String cipherName = "";

    /** The Java nodes' Ed25519, as chosen at the start of the run ({@code bc} or {@code openssl}). */
    private String signaturesName = "";

    @Override
    public Integer call() throws Exception {
        long n = P2pCommand.parseBytes(bytes);
        int chunkBytes = (int) Math.min(Integer.MAX_VALUE, P2pCommand.parseBytes(chunk));
        if (n < 1 || chunkBytes < 1 || chunkBytes > 16 << 20) {
            throw new UserError("--bytes must be positive and --chunk between 1 byte and 16 MiB");
        }
        if (runs < 1 || warmup < 0 || streams < 1 || connections < 1 || connections > 1000) {
            throw new UserError("--runs and --streams must be positive, --warmup not negative, --connections 1..1000");
        }
        if (concurrency < 1 || concurrency > 32) {
            throw new UserError("--stream-concurrency must be between 1 and 32, got " + concurrency);
        }
        if (exchanges < 1) {
            throw new UserError("--exchanges must be positive, got " + exchanges);
        }
        if (messages < 1) {
            throw new UserError("--messages must be positive, got " + messages);
        }
        messageBytes = P2pCommand.parseBytes(messageSize);
        if (messageBytes < GossipsubPair.HEAD_BYTES || messageBytes > 512 * 1024) {
            throw new UserError("--message-size must be between " + GossipsubPair.HEAD_BYTES
                    + " bytes and 512 KiB (a gossipsub RPC holds at most 1 MiB), got " + messageSize);
        }
        for (String section : sections) {
            if (!SECTIONS.contains(section)) {
                throw new UserError("--sections: unknown section '" + section + "'; expected some of " + SECTIONS);
            }
        }
        NoiseCiphers.Selection cipher;
        Ed25519Engines.Selection signatures;
        try {
            cipher = NoiseCiphers.select(CryptoMode.parse(crypto));
            signatures = Ed25519Engines.use(CryptoMode.parse(crypto));
        } catch (IllegalArgumentException | LibCryptoUnavailableException e) {
            throw new UserError("--crypto: " + e.getMessage());
        }
        cipherName = cipher.name();
        signaturesName = signatures.name();
        PrintWriter console = spec.commandLine().getErr();
        double loadBefore = MeasurementReport.loadAverage();
        List<Measurement> results = measure(n, chunkBytes, cipher, console);
        double loadAfter = MeasurementReport.loadAverage();
        String context = String.format(
                Locale.ROOT,
                "%d CPUs, load average %.2f before and %.2f after, Java %s, Noise cipher %s, Ed25519 %s",
                Runtime.getRuntime().availableProcessors(),
                loadBefore,
                loadAfter,
                Runtime.version(),
                cipher,
                signatures.name());
        PrintWriter stdout = spec.commandLine().getOut();
        if (json) {
            stdout.println(toJson(results, n, chunkBytes, context));
        } else {
            printTable(stdout, results, n, chunkBytes, context);
            stdout.println(summary(results, cipher.name()));
        }
        stdout.flush();
        try {
            MeasurementReport.write(out, MeasurementReport.csv(results), toJson(results, n, chunkBytes, context));
        } catch (IOException e) {
            throw new UserError("cannot write " + out + ": " + e.getMessage(), e);
        }
        return 0;
    }

    /** Runs the sections asked for, in their order, with a progress line before each. */
    private List<Measurement> measure(long n, int chunkBytes, NoiseCiphers.Selection cipher, PrintWriter console)
            throws Exception {
        List<Measurement> results = new ArrayList<>();
        if (sections.contains("cipher")) {
            progress(console, "ChaCha20-Poly1305 (JDK and OpenSSL's libcrypto), 64 KiB messages");
            results.addAll(cipher(n));
        }
        if (sections.contains("throughput")) {
            progress(
                    console,
                    "one-stream throughput, " + n + " bytes, " + (warmup + runs) + " interleaved rounds, cipher "
                            + cipher.name());
            results.addAll(throughput(n, chunkBytes, cipher, console));
        }
        if (sections.contains("interop")) {
            progress(
                    console,
                    "Java and js-libp2p each way, " + n + " bytes, " + (warmup + runs) + " interleaved rounds");
            results.addAll(interop(n, chunkBytes, console));
        }
        if (sections.contains("churn")) {
            progress(console, "stream churn, " + streams + " streams");
            results.addAll(churn());
        }
        if (sections.contains("memory")) {
            progress(console, "idle memory, " + connections + " connections");
            results.addAll(memory());
        }
        if (sections.contains("exchange")) {
            progress(console, "model exchange cost, " + exchanges + " exchanges a round, eager and lazy interleaved");
            results.addAll(exchangeCost());
        }
        if (sections.contains("pubsub")) {
            progress(
                    console,
                    "gossipsub, " + messageSize + " messages, Java and js-libp2p pairs, " + (warmup + runs)
                            + " interleaved rounds");
            results.addAll(pubsub((int) messageBytes, console));
        }
        return results;
    }

    private static void progress(PrintWriter console, String what) {
        console.println("bench p2p: " + what + " ...");
        console.flush();
    }

    private List<Measurement> cipher(long n) {
        List<Measurement> m = new ArrayList<>();
        m.addAll(cipher(n, NoiseCiphers.jdk(), "JDK", "javax.crypto"));
        NoiseCiphers.Selection auto = NoiseCiphers.select(CryptoMode.AUTO);
        if (auto.name().equals("openssl")) {
            m.addAll(cipher(n, auto.provider(), "OpenSSL", "libcrypto through the foreign function API"));
        } else {
            String why = "libcrypto unusable: " + auto.reason();
            m.add(Measurement.skipped("ChaCha20-Poly1305 encrypt, 64 KiB messages (OpenSSL)", "MiB/s", why));
            m.add(Measurement.skipped("ChaCha20-Poly1305 decrypt, 64 KiB messages (OpenSSL)", "MiB/s", why));
        }
        return m;
    }

    private List<Measurement> cipher(long n, AeadProvider provider, String label, String how) {
        List<Double> enc = new ArrayList<>();
        List<Double> dec = new ArrayList<>();
        try (CipherThroughput c = new CipherThroughput(64 * 1024, provider)) {
            for (int r = 0; r < warmup + runs; r++) {
                double e = c.encrypt(n);
                double d = c.decrypt(n);
                if (r >= warmup) {
                    enc.add(e);
                    dec.add(d);
                }
            }
        }
        String note = how + ", heap arrays in place, new nonce per message, one thread";
        return List.of(
                new Measurement("ChaCha20-Poly1305 encrypt, 64 KiB messages (" + label + ")", "MiB/s", enc, note),
                new Measurement("ChaCha20-Poly1305 decrypt, 64 KiB messages (" + label + ")", "MiB/s", dec, note));
    }

    /** The closing line: {@code java/js=R java/raw=R cipher=NAME} ({@code n/a} for a missing ratio). */
    static String summary(List<Measurement> results, String cipher) {
        return "java/js=" + ratioText(results, "ratio Java / js-libp2p (medians)") + " java/raw="
                + ratioText(results, "ratio Java / raw TCP (medians)") + " cipher=" + cipher;
    }

    private static String ratioText(List<Measurement> results, String name) {
        return results.stream()
                .filter(r -> r.name().equals(name) && r.present())
                .findFirst()
                .map(r -> String.format(Locale.ROOT, "%.2f", r.median()))
                .orElse("n/a");
    }

    private List<Measurement> throughput(long n, int chunkBytes, NoiseCiphers.Selection cipher, PrintWriter console)
            throws Exception {
        String jsSkipped = noJs ? "--no-js" : JsLibP2pPair.unavailableReason(jsDir);
        Series raw = new Series();
        Series java = new Series();
        Series js = new Series();
        double mib = n / (1024.0 * 1024.0);
        try (RawTcpThroughput tcp = new RawTcpThroughput();
                LibP2pThroughput lib = new LibP2pThroughput(CryptoMode.parse(crypto));
                JsLibP2pPair pair = jsSkipped == null ? JsLibP2pPair.start(jsDir) : null) {
            for (int r = 0; r < warmup + runs; r++) {
                boolean kept = r >= warmup;
                raw.add(kept, timed(mib, () -> tcp.run(n, chunkBytes)));
                java.add(kept, timed(mib, () -> lib.run(n, chunkBytes)));
                if (pair != null) {
                    js.add(kept, timed(mib, () -> pair.run(n, chunkBytes)));
                }
            }
        }
        if (jsSkipped != null) {
            console.println("bench p2p: js-libp2p skipped: " + jsSkipped);
        }
        List<Measurement> m = new ArrayList<>();
        String chunkNote = "writes of " + chunkBytes + " bytes, sink counts without hashing";
        m.add(new Measurement("raw TCP (Java NIO, no libp2p)", "MiB/s", raw.rates, chunkNote));
        Measurement javaM = new Measurement(
                "libp2p Java -> Java (TCP + Noise + yamux)",
                "MiB/s",
                java.rates,
                chunkNote + ", Noise cipher " + cipher.name());
        m.add(javaM);
        Measurement jsM = jsSkipped == null
                ? new Measurement(
                        "libp2p js -> js (js-libp2p 2.10, TCP + Noise + yamux)",
                        "MiB/s",
                        js.rates,
                        "writes of " + chunkBytes + " bytes, peer.js --count-only")
                : Measurement.skipped("libp2p js -> js (js-libp2p 2.10, TCP + Noise + yamux)", "MiB/s", jsSkipped);
        m.add(jsM);
        m.add(ratio("ratio Java / js-libp2p (medians)", javaM, jsM));
        m.add(ratio("ratio Java / raw TCP (medians)", javaM, m.getFirst()));
        String cpuNote = "CPU time of this process (both ends, plus JIT and GC) during the transfer, per MiB;"
                + " as fine as the OS counts it (often 10 ms)";
        m.add(cpu("CPU per MiB, raw TCP (both ends)", raw.cpu, cpuNote));
        m.add(cpu("CPU per MiB, libp2p Java -> Java (both ends)", java.cpu, cpuNote));
        return m;
    }

    /**
     * Java to js-libp2p and js-libp2p to Java, each beside js to js in the same rounds: the js peer sets the pace of
     * a stream it is on, so each cross direction is compared with js to js measured alongside it.
     */
    private List<Measurement> interop(long n, int chunkBytes, PrintWriter console) throws Exception {
        String[] names = {
            "libp2p Java -> js (TCP + Noise + yamux)",
            "libp2p js -> Java (TCP + Noise + yamux)",
            "libp2p js -> js, the same rounds"
        };
        String skipped = noJs ? "--no-js" : JsLibP2pPair.unavailableReason(jsDir);
        if (skipped != null) {
            console.println("bench p2p: interop skipped: " + skipped);
            return java.util.Arrays.stream(names)
                    .map(name -> Measurement.skipped(name, "MiB/s", skipped))
                    .toList();
        }
        List<Series> series = List.of(new Series(), new Series(), new Series());
        double mib = n / (1024.0 * 1024.0);
        try (InteropThroughput t = InteropThroughput.start(jsDir, CryptoMode.parse(crypto))) {
            for (int r = 0; r < warmup + runs; r++) {
                boolean kept = r >= warmup;
                series.get(0).add(kept, timed(mib, () -> t.javaToJs(n, chunkBytes)));
                series.get(1).add(kept, timed(mib, () -> t.jsToJava(n, chunkBytes)));
                series.get(2).add(kept, timed(mib, () -> t.jsToJs(n, chunkBytes)));
            }
            if (t.reconnects() > 0) {
                console.println("bench p2p: interop: the js sink had closed the Java host's connection "
                        + t.reconnects() + " time(s); dialled again before the transfer");
            }
        }
        String note = "writes of " + chunkBytes + " bytes, sinks count without hashing, Java cipher " + cipherName;
        List<Measurement> m = new ArrayList<>();
        for (int k = 0; k < names.length; k++) {
            m.add(new Measurement(names[k], "MiB/s", series.get(k).rates, note));
        }
        m.add(ratio("ratio Java -> js / js -> js (medians)", m.get(0), m.get(2)));
        m.add(ratio("ratio js -> Java / js -> js (medians)", m.get(1), m.get(2)));
        String cpuNote = "CPU time of this JVM (the Java end only, plus JIT and GC) per MiB";
        m.add(cpu("CPU per MiB, Java end sending to js", series.get(0).cpu, cpuNote));
        m.add(cpu("CPU per MiB, Java end receiving from js", series.get(1).cpu, cpuNote));
        return m;
    }

    /** One transfer of a benchmark round, timed by whoever can see its end. */
    @FunctionalInterface
    private interface Transfer {
        /** Seconds from its first byte to its end. */
        double seconds() throws Exception;
    }

    /** A transfer's rate and this process's CPU time per MiB during it (NaN where the JVM cannot tell). */
    private record Timed(double mibPerSecond, double cpuMillisPerMib) {}

    /** Runs {@code t} of {@code mib} MiB with this process's CPU time read around it, then {@linkplain #settle settles}. */
    private static Timed timed(double mib, Transfer t) throws Exception {
        long c0 = processCpuNanos();
        double seconds = t.seconds();
        long c1 = processCpuNanos();
        settle();
        return new Timed(mib / seconds, c0 >= 0 && c1 >= 0 ? (c1 - c0) / 1e6 / mib : Double.NaN);
    }

    /** One direction's figures over the rounds after the warm-up. */
    private static final class Series {
        final List<Double> rates = new ArrayList<>();
        final List<Double> cpu = new ArrayList<>();

        void add(boolean kept, Timed t) {
            if (kept) {
                rates.add(t.mibPerSecond());
                if (!Double.isNaN(t.cpuMillisPerMib())) {
                    cpu.add(t.cpuMillisPerMib());
                }
            }
        }
    }

    private static Measurement cpu(String name, List<Double> runs, String note) {
        return cpu(name, runs, "ms/MiB", note);
    }

    private static Measurement cpu(String name, List<Double> runs, String unit, String note) {
        return runs.isEmpty()
                ? Measurement.skipped(name, unit, "this JVM does not report process CPU time")
                : new Measurement(name, unit, runs, note);
    }

    /**
     * CPU time used by this process so far, or -1 where the JVM cannot tell. Less disturbed by other
     * work on the machine than wall time: it shows what a transfer costs, not how long it waited.
     */
    static long processCpuNanos() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                ? os.getProcessCpuTime()
                : -1;
    }

    /** A pause between transfers, so that one's aftermath (a collector, the kernel) does not slow the next. */
    private static void settle() throws InterruptedException {
        Thread.sleep(SETTLE_MILLIS);
    }

    static final long SETTLE_MILLIS = 200;

    private static Measurement ratio(String name, Measurement a, Measurement b) {
        if (!a.present() || !b.present()) {
            return Measurement.skipped(name, "x", "a figure is missing");
        }
        return new Measurement(name, "x", List.of(a.median() / b.median()), "");
    }

    private List<Measurement> churn() throws Exception {
        try (StreamChurn c = new StreamChurn()) {
            for (int r = 0; r < warmup; r++) {
                c.run(Math.max(1, streams / 10), 1);
            }
            List<Double> sequential = new ArrayList<>();
            List<Double> parallel = new ArrayList<>();
            for (int r = 0; r < runs; r++) {
                sequential.add(c.run(streams, 1));
                parallel.add(c.run(streams, concurrency));
            }
            String note = "open, negotiate " + "/chorus/echo/1.0.0" + ", FIN both ways; one connection";
            return List.of(
                    new Measurement("streams opened and closed, one at a time", "streams/s", sequential, note),
                    new Measurement(
                            "streams opened and closed, " + concurrency + " at a time", "streams/s", parallel, note));
        }
    }

    /**
     * One push-pull of a 100 KB model ({@link ExchangeCost}) with the protocol negotiated before the first byte and
     * proposed lazily, the two pairs of hosts measured in alternate rounds.
     */
    private List<Measurement> exchangeCost() throws Exception {
        List<Measurement> m = new ArrayList<>();
        for (ExchangeCost.Kind kind : ExchangeCost.Kind.values()) {
            m.addAll(exchangeCost(kind));
        }
        return m;
    }

    private List<Measurement> exchangeCost(ExchangeCost.Kind kind) throws Exception {
        List<List<Double>> eager = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        List<List<Double>> lazy = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        try (ExchangeCost e = new ExchangeCost(false);
                ExchangeCost l = new ExchangeCost(true)) {
            for (int r = 0; r < warmup; r++) {
                e.run(kind, Math.max(1, exchanges / 10));
                l.run(kind, Math.max(1, exchanges / 10));
            }
            for (int r = 0; r < runs; r++) {
                add(eager, e.run(kind, exchanges));
                add(lazy, l.run(kind, exchanges));
            }
        }
        boolean fragments = kind == ExchangeCost.Kind.FRAGMENTS_APART || kind == ExchangeCost.Kind.FRAGMENTS_BATCHED;
        String note = (fragments
                        ? "per round of " + ExchangeCost.ROUND_FRAGMENTS + " fragments of "
                                + ExchangeCost.PARAMETERS / 10 + " F32 parameters, explicit indices"
                        : ExchangeCost.PARAMETERS + " F32 parameters")
                + "; one I/O thread per host; " + exchanges + " exchanges one after another per run";
        String name = kind.label();
        List<Measurement> m = new ArrayList<>();
        String[] what = {"client I/O thread CPU", "server I/O thread CPU", "process CPU, both hosts", "wall time"};
        for (int k = 0; k < what.length; k++) {
            m.add(new Measurement(name + ", negotiated first: " + what[k], "us", eager.get(k), note));
            m.add(new Measurement(name + ", proposed lazily: " + what[k], "us", lazy.get(k), note));
        }
        return m;
    }

    private static void add(List<List<Double>> figures, ExchangeCost.Cost c) {
        figures.get(0).add(c.clientIoMicros());
        figures.get(1).add(c.serverIoMicros());
        figures.get(2).add(c.processMicros());
        figures.get(3).add(c.wallMicros());
    }

    /**
     * Gossipsub between two nodes, Java beside js-libp2p in the same rounds: the round trip of one message answered
     * whole (a publication each way), and messages per second one way, with one message in {@link #PUBSUB_ACK_EVERY}
     * acknowledged and at most {@link #PUBSUB_WINDOW} past the last acknowledged.
     */
    private List<Measurement> pubsub(int size, PrintWriter console) throws Exception {
        String jsSkipped = noJs ? "--no-js" : JsGossipsubPair.unavailableReason(jsDir);
        // The Java pair's third figure is this process's CPU time per message during the rate runs: both Java nodes.
        List<List<Double>> java = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        List<List<Double>> js = List.of(new ArrayList<>(), new ArrayList<>());
        try (GossipsubPair j = new JavaGossipsubPair(CryptoMode.parse(crypto));
                GossipsubPair s = jsSkipped == null ? JsGossipsubPair.start(jsDir) : null) {
            for (int r = 0; r < warmup + runs; r++) {
                boolean kept = r >= warmup;
                pubsubRound(j, size, kept, java);
                if (s != null) {
                    pubsubRound(s, size, kept, js);
                }
            }
        }
        if (jsSkipped != null) {
            console.println("bench p2p: js-libp2p gossipsub skipped: " + jsSkipped);
        }
        String note = messages + " messages of " + size + " bytes per run, StrictSign (Java's Ed25519 " + signaturesName
                + "); the p50 of each run";
        String rateNote = messages + " messages of " + size + " bytes per run, one in " + PUBSUB_ACK_EVERY
                + " acknowledged with a 9-byte message, at most " + PUBSUB_WINDOW + " past the last acknowledged";
        String jsName = "gossipsub js-libp2p (gossipsub 14.1.2): ";
        List<Measurement> m = new ArrayList<>();
        Measurement javaRtt = new Measurement(
                "gossipsub Java: round trip p50, message answered whole",
                "us",
                java.get(0),
                note + ", Java cipher " + cipherName);
        Measurement jsRtt = jsSkipped == null
                ? new Measurement(jsName + "round trip p50, message answered whole", "us", js.get(0), note)
                : Measurement.skipped(jsName + "round trip p50, message answered whole", "us", jsSkipped);
        Measurement javaRate = new Measurement(
                "gossipsub Java: messages per second", "msg/s", java.get(1), rateNote + ", Java cipher " + cipherName);
        Measurement jsRate = jsSkipped == null
                ? new Measurement(jsName + "messages per second", "msg/s", js.get(1), rateNote)
                : Measurement.skipped(jsName + "messages per second", "msg/s", jsSkipped);
        m.addAll(List.of(javaRtt, jsRtt, javaRate, jsRate));
        m.add(cpu(
                "gossipsub Java: CPU per message, both nodes",
                java.get(2),
                "us",
                "CPU time of this process during the rate runs, per message; both Java nodes, plus JIT and GC"));
        m.add(ratio("ratio gossipsub round trip p50, Java / js (medians)", javaRtt, jsRtt));
        m.add(ratio("ratio gossipsub messages per second, Java / js (medians)", javaRate, jsRate));
        return m;
    }

    /** One round of a pair: its round trips' p50, then its rate, kept after the warm-up. */
    private void pubsubRound(GossipsubPair pair, int size, boolean kept, List<List<Double>> into) throws Exception {
        double[] rtt = pair.roundTrips(messages, size);
        long c0 = processCpuNanos();
        double seconds = pair.flood(messages, size, PUBSUB_WINDOW, PUBSUB_ACK_EVERY);
        long c1 = processCpuNanos();
        if (kept) {
            into.get(0).add(median(rtt));
            into.get(1).add(messages / seconds);
            if (into.size() > 2 && c0 >= 0 && c1 >= 0) {
                into.get(2).add((c1 - c0) / 1e3 / messages);
            }
        }
    }

    static double median(double[] values) {
        double[] v = values.clone();
        java.util.Arrays.sort(v);
        int n = v.length;
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }

    private List<Measurement> memory() throws Exception {
        IdleConnectionMemory.Result r = IdleConnectionMemory.measure(connections);
        double mib = 1024.0 * 1024.0;
        String note = "separate JVM; heap used after System.gc(); baseline after one connection came and went; "
                + connections + " dialers are distinct peers";
        List<Measurement> m = new ArrayList<>();
        m.add(one("idle host: heap after GC, no connections", "MiB", r.idle().heapUsed() / mib, note));
        m.add(one(
                "idle host: heap after GC, " + connections + " connections",
                "MiB",
                r.loaded().heapUsed() / mib,
                note));
        m.add(one(
                "idle host: heap per connection",
                "KiB",
                (r.loaded().heapUsed() - r.idle().heapUsed()) / 1024.0 / connections,
                note));
        String directNote = "reserved by the buffer allocator (pooled chunks) + JDK direct buffers";
        m.add(one(
                "idle host: direct memory, no connections",
                "MiB",
                (Math.max(0, r.idle().allocatorDirect()) + r.idle().jdkDirect()) / mib,
                directNote));
        m.add(one(
                "idle host: direct memory, " + connections + " connections",
                "MiB",
                (Math.max(0, r.loaded().allocatorDirect()) + r.loaded().jdkDirect()) / mib,
                directNote));
        return m;
    }

    private static Measurement one(String name, String unit, double value, String note) {
        return new Measurement(name, unit, List.of(value), note);
    }

    private void printTable(PrintWriter w, List<Measurement> results, long n, int chunkBytes, String context) {
        w.printf(
                Locale.ROOT,
                "libp2p on loopback: %d bytes per transfer in %d-byte writes, median of %d runs after %d warm-up"
                        + " (%s)%n",
                n,
                chunkBytes,
                runs,
                warmup,
                context);
        MeasurementReport.printRows(w, results, 58);
    }

    private String toJson(List<Measurement> results, long n, int chunkBytes, String context) {
        return MeasurementReport.json(
                "p2p",
                w -> {
                    w.member("bytes", n);
                    w.member("chunk", chunkBytes);
                    w.member("runs", runs);
                    w.member("warmup", warmup);
                    w.member("context", context);
                    w.member("cipher", cipherName);
                    w.member("signatures", signaturesName);
                },
                results);
    }
}
