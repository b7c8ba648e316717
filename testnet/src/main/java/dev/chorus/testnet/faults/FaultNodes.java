package dev.chorus.testnet.faults;

import dev.chorus.learning.json.JsonReader;
import dev.chorus.node.config.ConfigLoader;
import dev.chorus.node.config.NodeConfig;
import dev.chorus.testnet.localnet.LocalnetManifest;
import dev.chorus.testnet.localnet.LocalnetNetwork;
import dev.chorus.testnet.localnet.NodeProcess;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The nodes of a running {@code testnet up --netns} as a scenario hurts them: their API, SIGKILL and a restart in
 * the same namespace with the same config (the manifest is rewritten with the new pid, so that {@code testnet down}
 * and the driver's cleanup find it), and commands inside a node's namespace.
 */
public final class FaultNodes implements AutoCloseable {

    private final Path dir;
    private final Class<?> mainClass;
    private final List<LocalnetManifest.Node> nodes;
    private final List<String> namespaces;
    private final String hostLink;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();

    private FaultNodes(Path dir, Class<?> mainClass, LocalnetManifest manifest) {
        this.dir = dir;
        this.mainClass = mainClass;
        this.nodes = new ArrayList<>(manifest.nodes());
        this.namespaces = manifest.namespaces();
        this.hostLink = manifest.hostLink();
    }

    /**
     * The testnet recorded in {@code dir/testnet.json}.
     *
     * @param mainClass the command line's main class, which restarted nodes run
     */
    public static FaultNodes open(Path dir, Class<?> mainClass) throws IOException {
        LocalnetManifest m = LocalnetManifest.read(dir);
        if (m.namespaces().size() != m.nodes().size() + 1) {
            throw new IllegalArgumentException(dir + ": not a --netns testnet with one namespace per node");
        }
        return new FaultNodes(dir, mainClass, m);
    }

    public int size() {
        return nodes.size();
    }

    public LocalnetManifest.Node node(int i) {
        return nodes.get(i);
    }

    /** Node {@code i}'s namespace. */
    public String namespace(int i) {
        return namespaces.get(i + 1);
    }

    /** Node {@code i}'s address on the testnet's bridge, e.g. {@code 10.77.S.1}. */
    public String address(int i) {
        return URI.create(nodes.get(i).api()).getHost();
    }

    /** Node {@code i}'s config as the node reads it. */
    public NodeConfig config(int i) {
        return ConfigLoader.load(nodes.get(i).dir().resolve("node.yaml"), List.of());
    }

    /** Runs {@code cmd} in node {@code i}'s namespace; its standard output. */
    public String runIn(int i, List<String> cmd) {
        return LocalnetNetwork.runIn(namespace(i), cmd);
    }

    /** Node {@code i}'s status; empty when its API does not answer (it is down or starting). */
    public Optional<NodeStatus> status(int i) throws InterruptedException {
        try {
            Map<String, Object> status = get(i, "api/status");
            Map<String, Object> peers = get(i, "api/peers");
            return Optional.of(NodeStatus.parse(status, peers));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** Node {@code i}'s {@code /api/status} as parsed JSON; empty when its API does not answer. */
    public Optional<Map<String, Object>> rawStatus(int i) throws InterruptedException {
        try {
            return Optional.of(get(i, "api/status"));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private Map<String, Object> get(int i, String path) throws IOException, InterruptedException {
        LocalnetManifest.Node n = nodes.get(i);
        HttpRequest.Builder request =
                HttpRequest.newBuilder(URI.create(n.api() + path)).timeout(Duration.ofSeconds(5));
        Path token = n.dir().resolve("api.token");
        if (Files.exists(token)) {
            request.header("Authorization", "Bearer " + Files.readString(token).strip());
        }
        HttpResponse<String> r = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException(n.api() + path + " answered " + r.statusCode());
        }
        return JsonReader.parseObject(r.body());
    }

    /**
     * Every node's status once {@code done} holds for all of them, polled every 500 ms.
     *
     * @throws FaultException naming {@code what} and the last statuses when {@code timeout} passes first
     */
    public List<NodeStatus> awaitAll(Predicate<NodeStatus> done, Duration timeout, String what)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<Optional<NodeStatus>> last = new ArrayList<>();
        while (true) {
            last.clear();
            for (int i = 0; i < nodes.size(); i++) {
                last.add(status(i));
            }
            if (last.stream().allMatch(s -> s.isPresent() && done.test(s.get()))) {
                return last.stream().map(Optional::get).toList();
            }
            if (System.nanoTime() > deadline) {
                throw new FaultException(what + " not reached within " + timeout.toSeconds() + " s; last statuses: "
                        + last.stream()
                                .map(s -> s.map(FaultNodes::brief).orElse("no answer"))
                                .toList());
            }
            Thread.sleep(500);
        }
    }

    static String brief(NodeStatus s) {
        return "v" + s.modelVersion() + " acc " + String.format(java.util.Locale.ROOT, "%.3f", s.accuracy()) + " peers "
                + s.peerCount();
    }

    /** SIGKILL to node {@code i}'s process; waits (up to 10 s) until it is gone. */
    public void kill(int i) throws InterruptedException {
        Optional<ProcessHandle> h = live(nodes.get(i));
        if (h.isEmpty()) {
            throw new FaultException(
                    nodes.get(i).name() + " pid " + nodes.get(i).pid() + " is not running");
        }
        h.get().destroyForcibly();
        try {
            h.get().onExit().get(10, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new FaultException(
                    nodes.get(i).name() + " pid " + nodes.get(i).pid() + " still runs 10 s after" + " SIGKILL");
        }
    }

    /** SIGTERM to node {@code i} (it checkpoints and exits), SIGKILL after 30 s; waits until it is gone. */
    public void stop(int i) throws InterruptedException {
        Optional<ProcessHandle> h = live(nodes.get(i));
        if (h.isEmpty()) {
            return;
        }
        h.get().destroy();
        try {
            h.get().onExit().get(30, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            kill(i);
        }
    }

    /**
     * Starts node {@code i} again in its namespace with its config and waits for its {@code /ready}.
     *
     * @throws FaultException when it does not get ready within {@code timeout}
     */
    public void restart(int i, Duration timeout) throws IOException, InterruptedException {
        LocalnetManifest.Node old = nodes.get(i);
        Path home = old.dir();
        Process p = NodeProcess.start(
                mainClass, LocalnetNetwork.execPrefix(namespace(i)), home.resolve("node.yaml"), home.resolve("logs"));
        nodes.set(
                i,
                new LocalnetManifest.Node(
                        old.name(),
                        home,
                        p.pid(),
                        p.info().startInstant().orElse(null),
                        old.peerId(),
                        old.listen(),
                        old.api()));
        // Recorded before the wait, so that a cleanup after a failure finds the new process.
        new LocalnetManifest(nodes, namespaces, hostLink).write(dir);
        String token = Files.exists(home.resolve("api.token"))
                ? Files.readString(home.resolve("api.token")).strip()
                : null;
        String failure = NodeProcess.awaitReady(http, p, old.api(), token, timeout);
        if (failure != null) {
            throw new FaultException(old.name() + " did not come back: " + failure + " (log: "
                    + home.resolve("logs").resolve(NodeProcess.STDERR) + ")");
        }
    }

    /** The node's process if it is still the one recorded. */
    static Optional<ProcessHandle> live(LocalnetManifest.Node n) {
        return ProcessHandle.of(n.pid())
                .filter(ProcessHandle::isAlive)
                .filter(h -> n.startedAt() == null
                        || h.info()
                                .startInstant()
                                .map(t ->
                                        Duration.between(n.startedAt(), t).abs().toMillis() <= 1000)
                                .orElse(true));
    }

    @Override
    public void close() {
        http.close();
    }
}
