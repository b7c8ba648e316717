package dev.chorus.cli.bench;

import dev.chorus.learning.json.JsonReader;
import dev.chorus.node.BundledData;
import dev.chorus.node.config.ConfigSchema;
import dev.chorus.node.setup.NodeDirectory;
import dev.chorus.testnet.localnet.NodeProcess;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Start-up time and idle memory of real node processes ({@code chorus node run}, started by {@link NodeProcess}
 * exactly as {@code testnet up} starts them). One round: node A is started and awaited; node B, bootstrapped to A,
 * is spawned with the clock at zero and both nodes' APIs are polled every {@code pollMillis} until B answers
 * {@code /health}, B answers {@code /ready}, A lists B as a connected peer and B lists A. Both train one epoch of
 * their half of the bundled WDBC (a few steps) and then idle, connected, serving the API; after {@code settle} the
 * resident memory of each is read from {@code /proc/PID/status} {@code samples} times, one second apart, and the
 * heap in use once from {@code jcmd PID GC.heap_info} where the JDK has it.
 */
public final class DaemonStartup {

    /** One round's times from B's spawn, in milliseconds, and A's and B's memory. */
    public record Round(
            double healthMillis,
            double readyMillis,
            double peerSeenByDialedMillis,
            double peerSeenByNewMillis,
            List<Memory> memory) {}

    /**
     * One idle node's memory, in bytes.
     *
     * @param rss median of the VmRSS samples
     * @param hwm VmHWM (peak resident) at the last sample
     * @param heapUsed heap in use as {@code jcmd GC.heap_info} reports it, or -1 when unavailable
     * @param vmFlags the JVM's final flags as {@code jcmd VM.flags} prints them, or "" when unavailable
     */
    public record Memory(long rss, long hwm, long heapUsed, String vmFlags) {}

    private static final Duration START_TIMEOUT = Duration.ofSeconds(180);

    private final Path workDir;
    private final long pollMillis;
    private final Duration settle;
    private final int samples;
    private final Map<String, String> settings;
    private final Class<?> mainClass;

    /**
     * @param mainClass the command line's main class, which the node processes run
     * @param workDir where the rounds' data directories are created (must not exist yet, or be empty)
     * @param settings config keys written to both nodes' node.yaml (key to YAML text)
     */
    public DaemonStartup(
            Class<?> mainClass,
            Path workDir,
            long pollMillis,
            Duration settle,
            int samples,
            Map<String, String> settings) {
        this.mainClass = mainClass;
        this.workDir = workDir;
        this.pollMillis = pollMillis;
        this.settle = settle;
        this.samples = samples;
        this.settings = Map.copyOf(settings);
    }

    /** Runs round {@code index}: two nodes started, timed, measured and stopped again. */
    public Round run(int index) throws IOException, InterruptedException {
        Path round = workDir.resolve("round-" + index);
        Path data = round.resolve("wdbc.csv");
        Files.createDirectories(round);
        BundledData.copyTo(data);
        int apiA = freePort();
        int apiB = freePort();
        Path homeA = home(round.resolve("a"), data, apiA, List.of());
        List<Process> started = new ArrayList<>();
        try (HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build()) {
            Process a = NodeProcess.start(mainClass, homeA.resolve("node.yaml"), homeA.resolve("logs"));
            started.add(a);
            String urlA = "http://127.0.0.1:" + apiA + "/";
            String failure = NodeProcess.awaitReady(http, a, urlA, START_TIMEOUT);
            if (failure != null) {
                throw new IOException("node A did not start: " + failure + " (log: " + log(homeA) + ")");
            }
            Map<String, Object> statusA = getJson(http, urlA + "api/status");
            @SuppressWarnings("unchecked")
            List<Object> addrs = (List<Object>) statusA.get("listenAddrs");
            String bootstrap = addrs.getFirst() + "/p2p/" + statusA.get("peerId");
            Path homeB = home(round.resolve("b"), data, apiB, List.of(bootstrap));
            String urlB = "http://127.0.0.1:" + apiB + "/";

            long t0 = System.nanoTime();
            Process b = NodeProcess.start(mainClass, homeB.resolve("node.yaml"), homeB.resolve("logs"));
            started.add(b);
            long health = -1, ready = -1, seenByA = -1, seenByB = -1;
            long deadline = t0 + START_TIMEOUT.toNanos();
            while (health < 0 || ready < 0 || seenByA < 0 || seenByB < 0) {
                if (System.nanoTime() > deadline) {
                    throw new IOException("node B was not up and connected within " + START_TIMEOUT.toSeconds()
                            + " s (log: " + log(homeB) + ")");
                }
                if (!b.isAlive()) {
                    throw new IOException("node B exited with code " + b.exitValue() + " (log: " + log(homeB) + ")");
                }
                if (seenByA < 0 && peerCount(http, urlA) >= 1) {
                    seenByA = System.nanoTime();
                }
                if (health < 0 && status(http, urlB + "health") == 200) {
                    health = System.nanoTime();
                }
                if (health >= 0 && seenByB < 0 && peerCount(http, urlB) >= 1) {
                    seenByB = System.nanoTime();
                }
                if (health >= 0 && ready < 0 && status(http, urlB + "ready") == 200) {
                    ready = System.nanoTime();
                }
                Thread.sleep(pollMillis);
            }
            Thread.sleep(settle.toMillis());
            List<Memory> memory = measure(List.of(a, b));
            return new Round(
                    millis(health - t0), millis(ready - t0), millis(seenByA - t0), millis(seenByB - t0), memory);
        } finally {
            for (int i = started.size() - 1; i >= 0; i--) {
                NodeProcess.stop(started.get(i), Duration.ofSeconds(30));
            }
        }
    }

    private Path home(Path dir, Path data, int apiPort, List<String> bootstrap) {
        Map<String, String> values = new LinkedHashMap<>();
        values.put(ConfigSchema.CONSORTIUM, "bench");
        values.put(ConfigSchema.LISTEN, "[/ip4/127.0.0.1/tcp/0]");
        values.put(ConfigSchema.BOOTSTRAP, "[" + String.join(", ", bootstrap) + "]");
        values.put(ConfigSchema.DATA_PATH, data.toAbsolutePath().toString());
        values.put(ConfigSchema.DATA_LABEL, "\"Diagnosis\"");
        values.put(ConfigSchema.DATA_POSITIVE, "\"M\"");
        values.put(ConfigSchema.DATA_DROP, "[\"ID\"]");
        values.put(ConfigSchema.API_HOST, "127.0.0.1");
        values.put(ConfigSchema.API_PORT, Integer.toString(apiPort));
        // One epoch, then the node stops training and only serves: the idle node the figure is about.
        values.put(ConfigSchema.TRAINING_EPOCHS, "1");
        values.putAll(settings);
        NodeDirectory.create(dir, values);
        return dir;
    }

    private List<Memory> measure(List<Process> processes) throws IOException, InterruptedException {
        long[][] rss = new long[processes.size()][samples];
        long[] hwm = new long[processes.size()];
        for (int s = 0; s < samples; s++) {
            if (s > 0) {
                Thread.sleep(1000);
            }
            for (int i = 0; i < processes.size(); i++) {
                Map<String, Long> st = procStatus(processes.get(i).pid());
                rss[i][s] = st.get("VmRSS");
                hwm[i] = st.get("VmHWM");
            }
        }
        // jcmd attaches to the node (a thread and some memory of its own), so it runs after the samples.
        List<Memory> out = new ArrayList<>();
        for (int i = 0; i < processes.size(); i++) {
            long pid = processes.get(i).pid();
            long heap = heapUsed(jcmd(pid, "GC.heap_info"));
            String flags = jcmd(pid, "VM.flags")
                    .lines()
                    .filter(l -> l.startsWith("-"))
                    .findFirst()
                    .orElse("");
            long[] sorted = rss[i].clone();
            java.util.Arrays.sort(sorted);
            out.add(new Memory(sorted[sorted.length / 2], hwm[i], heap, flags.strip()));
        }
        return out;
    }

    /** The {@code kB} fields of {@code /proc/PID/status}, in bytes. */
    static Map<String, Long> procStatus(long pid) throws IOException {
        Map<String, Long> m = new LinkedHashMap<>();
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            Matcher x = KB_FIELD.matcher(line);
            if (x.matches()) {
                m.put(x.group(1), Long.parseLong(x.group(2)) * 1024);
            }
        }
        if (!m.containsKey("VmRSS") || !m.containsKey("VmHWM")) {
            throw new IOException("/proc/" + pid + "/status has no VmRSS or VmHWM");
        }
        return m;
    }

    private static final Pattern KB_FIELD = Pattern.compile("^(\\w+):\\s+(\\d+) kB$");
    private static final Pattern HEAP_USED = Pattern.compile("used (\\d+)K");

    /** The first {@code used NK} of {@code GC.heap_info} (the whole heap, for G1 and Serial alike), or -1. */
    static long heapUsed(String heapInfo) {
        Matcher m = HEAP_USED.matcher(heapInfo);
        return m.find() ? Long.parseLong(m.group(1)) * 1024 : -1;
    }

    /** The output of {@code jcmd PID COMMAND}, or "" when the JDK has no jcmd or it fails. */
    private static String jcmd(long pid, String command) throws InterruptedException {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        if (!Files.isExecutable(jcmd)) {
            return "";
        }
        try {
            Process p = new ProcessBuilder(jcmd.toString(), Long.toString(pid), command)
                    .redirectErrorStream(true)
                    .start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "";
            }
            return p.exitValue() == 0 ? new String(out, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return "";
        }
    }

    private static long peerCount(HttpClient http, String api) throws InterruptedException {
        try {
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(URI.create(api + "api/peers"))
                            .timeout(Duration.ofSeconds(2))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200
                    ? ((Number) JsonReader.parseObject(r.body()).get("count")).longValue()
                    : -1;
        } catch (IOException notYet) {
            return -1;
        }
    }

    private static int status(HttpClient http, String url) throws InterruptedException {
        try {
            return http.send(
                            HttpRequest.newBuilder(URI.create(url))
                                    .timeout(Duration.ofSeconds(2))
                                    .build(),
                            HttpResponse.BodyHandlers.discarding())
                    .statusCode();
        } catch (IOException notYet) {
            return -1;
        }
    }

    private static Map<String, Object> getJson(HttpClient http, String url) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create(url))
                        .timeout(Duration.ofSeconds(5))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException(url + " answered " + r.statusCode());
        }
        return JsonReader.parseObject(r.body());
    }

    private static Path log(Path home) {
        return home.resolve("logs").resolve(NodeProcess.STDERR);
    }

    private static double millis(long nanos) {
        return nanos / 1e6;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
