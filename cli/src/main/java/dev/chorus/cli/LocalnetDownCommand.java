package dev.chorus.cli;

import dev.chorus.node.setup.UserError;
import dev.chorus.testnet.localnet.LocalnetManifest;
import dev.chorus.testnet.localnet.LocalnetNetwork;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code chorus testnet down}: stops the node processes recorded in {@code DIR/testnet.json}. Each gets SIGTERM
 * (the node finishes its step, checkpoints and exits); those still running after the timeout get SIGKILL. A pid
 * whose process started at another time than recorded belongs to someone else now and is left alone. Running it
 * again reports every node as not running.
 */
@Command(
        name = "down",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Stops the nodes of a local testnet started with 'testnet up'.",
            "Sends SIGTERM to each process in DIR/testnet.json, then SIGKILL to those still running after --timeout;"
                    + " then deletes the network namespaces of a --netns testnet.",
            "Idempotent. Data directories and logs are kept."
        })
public final class LocalnetDownCommand implements java.util.concurrent.Callable<Integer> {

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--dir", required = true, paramLabel = "DIR", description = "Directory of the testnet.")
    Path dir;

    @Option(
            names = "--timeout",
            paramLabel = "SECONDS",
            description = "How long the nodes get to stop after SIGTERM. Default: ${DEFAULT-VALUE}.")
    int timeoutSeconds = 60;

    @Override
    public Integer call() throws InterruptedException {
        if (timeoutSeconds < 0) {
            throw new UserError("--timeout: expected at least 0, got " + timeoutSeconds);
        }
        LocalnetManifest manifest;
        try {
            manifest = LocalnetManifest.read(dir);
        } catch (NoSuchFileException e) {
            throw new UserError("no " + LocalnetManifest.FILE + " in " + dir + ": not a testnet directory");
        } catch (IOException | IllegalArgumentException e) {
            throw new UserError("cannot read " + dir.resolve(LocalnetManifest.FILE) + ": " + e.getMessage());
        }
        PrintWriter out = spec.commandLine().getOut();
        boolean allStopped = stop(manifest.nodes(), Duration.ofSeconds(timeoutSeconds), out);
        boolean networkGone = deleteNetwork(manifest, out);
        if (networkGone && !manifest.namespaces().isEmpty()) {
            forgetNetwork(dir);
        }
        out.flush();
        return allStopped && networkGone ? 0 : 1;
    }

    /**
     * Deletes the namespaces of a {@code --netns} testnet that still exist, and waits until the root namespace's
     * veth into it is gone; one line per problem on {@code out}.
     *
     * @return whether nothing of the network is left
     */
    static boolean deleteNetwork(LocalnetManifest manifest, PrintWriter out) throws InterruptedException {
        if (manifest.namespaces().isEmpty()) {
            return true;
        }
        List<String> problems = LocalnetNetwork.delete(manifest.namespaces());
        for (String p : problems) {
            out.println(p);
        }
        boolean linkGone = manifest.hostLink() == null || LocalnetNetwork.awaitLinkGone(manifest.hostLink(), 30);
        if (!linkGone) {
            out.println("link " + manifest.hostLink() + " still exists 30 s after its namespaces were deleted");
        }
        if (problems.isEmpty() && linkGone) {
            out.println("namespaces " + String.join(", ", manifest.namespaces()) + ": deleted");
        }
        out.flush();
        return problems.isEmpty() && linkGone;
    }

    /**
     * Rewrites {@code dir/testnet.json} without its namespaces once they are deleted, so that a later {@code down}
     * leaves alone a new testnet that reuses their names. Does nothing when there is no manifest.
     */
    static void forgetNetwork(Path dir) {
        try {
            LocalnetManifest m = LocalnetManifest.read(dir);
            new LocalnetManifest(m.nodes(), List.of(), null).write(dir);
        } catch (NoSuchFileException e) {
            // the failure came before the manifest was written
        } catch (IOException | IllegalArgumentException e) {
            throw new UserError("cannot rewrite " + dir.resolve(LocalnetManifest.FILE) + ": " + e.getMessage());
        }
    }

    /** The node's process if it is still the one that was started. */
    static Optional<ProcessHandle> live(LocalnetManifest.Node n) {
        return ProcessHandle.of(n.pid()).filter(ProcessHandle::isAlive).filter(h -> sameStart(h, n.startedAt()));
    }

    private static boolean sameStart(ProcessHandle h, Instant recorded) {
        if (recorded == null) {
            return true;
        }
        Optional<Instant> now = h.info().startInstant();
        return now.isEmpty() || Duration.between(recorded, now.get()).abs().compareTo(Duration.ofSeconds(1)) <= 0;
    }

    /**
     * SIGTERM to every live node, up to {@code timeout} to exit, then SIGKILL; one line per node on {@code out}.
     *
     * @return whether no node is left running
     */
    static boolean stop(List<LocalnetManifest.Node> nodes, Duration timeout, PrintWriter out)
            throws InterruptedException {
        List<LocalnetManifest.Node> signalled = new ArrayList<>();
        List<ProcessHandle> handles = new ArrayList<>();
        for (LocalnetManifest.Node n : nodes) {
            Optional<ProcessHandle> h = live(n);
            if (h.isEmpty()) {
                out.println(n.name() + " pid " + n.pid() + ": not running");
                continue;
            }
            h.get().destroy();
            signalled.add(n);
            handles.add(h.get());
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        boolean all = true;
        for (int i = 0; i < handles.size(); i++) {
            ProcessHandle h = handles.get(i);
            LocalnetManifest.Node n = signalled.get(i);
            long left = Math.max(0, deadline - System.nanoTime());
            if (await(h, left)) {
                out.println(n.name() + " pid " + n.pid() + ": stopped");
                continue;
            }
            h.destroyForcibly();
            if (await(h, TimeUnit.SECONDS.toNanos(10))) {
                out.println(n.name() + " pid " + n.pid() + ": killed (still running " + timeout.toSeconds()
                        + " s after SIGTERM)");
            } else {
                out.println(n.name() + " pid " + n.pid() + ": still running after SIGKILL");
                all = false;
            }
        }
        out.flush();
        return all;
    }

    private static boolean await(ProcessHandle h, long nanos) throws InterruptedException {
        try {
            h.onExit().get(nanos, TimeUnit.NANOSECONDS);
            return true;
        } catch (java.util.concurrent.TimeoutException e) {
            return !h.isAlive();
        } catch (java.util.concurrent.ExecutionException e) {
            return !h.isAlive();
        }
    }
}
