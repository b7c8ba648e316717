package dev.chorus.cli.bench;

import dev.chorus.node.BundledData;
import dev.chorus.node.averaging.AveragingKind;
import dev.chorus.node.config.ConfigLoader;
import dev.chorus.node.config.ConfigSchema;
import dev.chorus.node.daemon.NodeDaemon;
import dev.chorus.node.setup.NodeDirectory;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The cost of the HTTP API to training: a node started in this JVM ({@link NodeDaemon}, as {@code node run} starts
 * it) trains alone ({@code averaging.strategy: none}) on the bundled WDBC until stopped, and its training loop's
 * step counter is read over a timed window after a warm-up. With {@code api.enabled: false} nothing serves HTTP;
 * with the API on, a client fetches {@code /api/status} and {@code /metrics} every {@code scrapeMillis}, as a
 * dashboard and a Prometheus server would. The node's in-memory metrics are updated by the loop in both cases; what
 * is switched off is serving them. Each run is a fresh node in a fresh data directory.
 */
public final class ApiOverhead {

    /**
     * One run's outcome.
     *
     * @param stepsPerSecond steps counted by the training loop over the window, per second
     * @param scrapes pairs of requests (status and metrics) answered 200 during the window and warm-up
     * @param scrapeFailures requests that failed or answered something else
     * @param backend the node's tensor backend
     * @param model the node's model
     * @param apiCpuNanos CPU time of the API server's threads (Vert.x) over the window
     * @param windowScrapes scrapes answered within the window
     * @param windowNanos the window's length
     */
    public record Run(
            double stepsPerSecond,
            long scrapes,
            long scrapeFailures,
            String backend,
            String model,
            long apiCpuNanos,
            long windowScrapes,
            long windowNanos) {}

    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

    private final Path workDir;
    private final Duration warmup;
    private final Duration window;
    private final Map<String, String> settings;
    private int runs;

    /**
     * @param workDir where each run's data directory is created
     * @param settings config keys written to node.yaml (key to YAML text), on top of the benchmark's own
     */
    public ApiOverhead(Path workDir, Duration warmup, Duration window, Map<String, String> settings) {
        this.workDir = workDir;
        this.warmup = warmup;
        this.window = window;
        this.settings = Map.copyOf(settings);
    }

    /**
     * One run: the API off when {@code scrapeMillis} is 0, else on and fetched every {@code scrapeMillis}.
     *
     * @return the steps per second over the window, and how the scrapes went
     */
    public Run run(long scrapeMillis) throws IOException, InterruptedException {
        Path home = workDir.resolve("run-" + runs++);
        Files.createDirectories(home);
        Path data = home.resolve("wdbc.csv");
        BundledData.copyTo(data);
        Map<String, String> values = new LinkedHashMap<>();
        values.put(ConfigSchema.CONSORTIUM, "bench");
        values.put(ConfigSchema.LISTEN, "[/ip4/127.0.0.1/tcp/0]");
        values.put(ConfigSchema.DATA_PATH, data.toAbsolutePath().toString());
        values.put(ConfigSchema.DATA_LABEL, "\"Diagnosis\"");
        values.put(ConfigSchema.DATA_POSITIVE, "\"M\"");
        values.put(ConfigSchema.DATA_DROP, "[\"ID\"]");
        values.put(ConfigSchema.AVERAGING_STRATEGY, AveragingKind.NONE.configName());
        values.put(ConfigSchema.TRAINING_EPOCHS, "0");
        values.put(ConfigSchema.API_HOST, "127.0.0.1");
        values.put(ConfigSchema.API_PORT, "0");
        // The bench measures what answering costs training: the rate limit must not turn its fast scrapes away.
        values.put(ConfigSchema.API_MAX_REQUESTS_PER_SECOND, "1000000");
        values.putAll(settings);
        values.put(ConfigSchema.API_ENABLED, Boolean.toString(scrapeMillis > 0));
        NodeDirectory.create(home, values);
        try (NodeDaemon node = NodeDaemon.start(ConfigLoader.load(home.resolve("node.yaml"), List.of()))) {
            long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
            while (node.metrics().steps() < 1) {
                if (node.failure() != null) {
                    throw new IOException("the node failed: " + node.failure());
                }
                if (System.nanoTime() > deadline) {
                    throw new IOException("the node took no training step within " + START_TIMEOUT.toSeconds() + " s");
                }
                Thread.sleep(20);
            }
            Scraper scraper = scrapeMillis > 0 ? new Scraper(node.apiPort(), scrapeMillis) : null;
            try {
                Thread.sleep(warmup.toMillis());
                long scraped0 = scraper == null ? 0 : scraper.ok.get();
                Map<Long, Long> cpu0 = apiThreadCpu();
                long s0 = node.metrics().steps();
                long t0 = System.nanoTime();
                Thread.sleep(window.toMillis());
                long s1 = node.metrics().steps();
                long t1 = System.nanoTime();
                Map<Long, Long> cpu1 = apiThreadCpu();
                long scraped = scraper == null ? 0 : scraper.ok.get() - scraped0;
                long apiCpu = 0;
                for (Map.Entry<Long, Long> e : cpu1.entrySet()) {
                    apiCpu += e.getValue() - cpu0.getOrDefault(e.getKey(), 0L);
                }
                if (node.failure() != null) {
                    throw new IOException("the node failed: " + node.failure());
                }
                double stepsPerSecond = (s1 - s0) / ((t1 - t0) / 1e9);
                return new Run(
                        stepsPerSecond,
                        scraper == null ? 0 : scraper.ok.get(),
                        scraper == null ? 0 : scraper.failed.get(),
                        node.backend(),
                        node.model(),
                        apiCpu,
                        scraped,
                        t1 - t0);
            } finally {
                if (scraper != null) {
                    scraper.close();
                }
            }
        }
    }

    /**
     * CPU time by thread id of the API server's threads (Vert.x names them {@code vert.x-...}; nothing else in the
     * node uses Vert.x). Only this run's node is alive, so these are its threads.
     */
    private static Map<Long, Long> apiThreadCpu() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        Map<Long, Long> m = new HashMap<>();
        if (!threads.isThreadCpuTimeSupported() || !threads.isThreadCpuTimeEnabled()) {
            return m;
        }
        for (ThreadInfo t : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (t != null && t.getThreadName().startsWith("vert.x-")) {
                long cpu = threads.getThreadCpuTime(t.getThreadId());
                if (cpu >= 0) {
                    m.put(t.getThreadId(), cpu);
                }
            }
        }
        return m;
    }

    /** Fetches {@code /api/status} then {@code /metrics} at a fixed rate on its own thread, until closed. */
    private static final class Scraper implements AutoCloseable {
        final AtomicLong ok = new AtomicLong();
        final AtomicLong failed = new AtomicLong();
        private final HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        private final Thread thread;
        private volatile boolean stop;

        Scraper(int port, long intervalMillis) {
            List<HttpRequest> requests = List.of("api/status", "metrics").stream()
                    .map(p -> HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/" + p))
                            .timeout(Duration.ofSeconds(5))
                            .build())
                    .toList();
            long interval = intervalMillis * 1_000_000;
            thread = Thread.ofPlatform().name("bench-scraper").daemon().start(() -> {
                long next = System.nanoTime();
                while (!stop) {
                    boolean all = true;
                    for (HttpRequest r : requests) {
                        try {
                            HttpResponse<byte[]> resp = http.send(r, HttpResponse.BodyHandlers.ofByteArray());
                            all &= resp.statusCode() == 200 && resp.body().length > 0;
                        } catch (IOException e) {
                            all = false;
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                    (all ? ok : failed).incrementAndGet();
                    next += interval;
                    long wait = next - System.nanoTime();
                    if (wait > 0) {
                        try {
                            Thread.sleep(Duration.ofNanos(wait));
                        } catch (InterruptedException e) {
                            return;
                        }
                    } else {
                        next = System.nanoTime(); // behind: no burst to catch up
                    }
                }
            });
        }

        @Override
        public void close() throws InterruptedException {
            stop = true;
            thread.interrupt();
            thread.join(10_000);
            http.close();
        }
    }
}
