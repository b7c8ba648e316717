package dev.chorus.cli;

import dev.chorus.node.config.ConfigSchema;
import dev.chorus.node.setup.UserError;
import dev.chorus.testnet.faults.FaultNodes;
import dev.chorus.testnet.faults.FaultReport;
import dev.chorus.testnet.faults.FaultScenario;
import dev.chorus.testnet.faults.FaultSettings;
import dev.chorus.testnet.faults.StoppedChecks;
import dev.chorus.testnet.localnet.LocalnetManifest;
import dev.chorus.testnet.localnet.LocalnetNetwork;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code chorus testnet faults}: starts a {@code testnet up --netns} (through {@link LocalnetUpCommand}, with the same
 * options), runs one fault scenario of {@link FaultScenario} on its nodes, stops them and deletes the namespaces
 * (also on a failure), checks every node's checkpoints and audit chain once more while the nodes are stopped,
 * prints the report and writes it as JSON. Exit code 0 when the scenario's invariant held, 1 when it did not.
 */
@Command(
        name = "faults",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Runs a fault scenario on a testnet of real node processes, each in its own network namespace (needs root,"
                    + " the ip command, and iptables for partition and loss), and checks its invariant.",
            "kill: SIGKILL a random node every --interval, --kills times, restarting it; its checkpoints verify, it"
                    + " resumes from its newest checkpoint, its egress audit chain verifies, the accuracy holds.",
            "partition: two halves cut apart by iptables for --duration; both train on, they reconnect by themselves"
                    + " after healing and merge each other's models again, the accuracy comes back.",
            "loss: every node drops --loss percent of its incoming packets for --duration; training and exchanges go"
                    + " on, none past the exchange timeout.",
            "diskfull: one node's data directory on a small tmpfs that fills up for --duration; it trains on, logs"
                    + " the checkpoints it cannot write, loses none it had, and checkpoints again once space returns.",
            "flood: the last node is stopped and its identity and member certificate flood node 0 for --duration:"
                    + " model pulls, malformed pushes, junk announcements, API connections past api.max_connections"
                    + " and requests past its rate; node 0 stays up with its heap bounded, trains and exchanges on,"
                    + " and every honest node keeps exchanging.",
            "The data is split iid unless --partition says otherwise.",
            "The report (a table, figures, and a last line 'faults: SCENARIO passed|failed: REASON') goes to standard"
                    + " output and, as JSON, to --report. Exit code 0: passed, 1: failed, 2: bad input."
        })
public final class LocalnetFaultsCommand implements Callable<Integer> {

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(
            names = "--scenario",
            required = true,
            paramLabel = "NAME",
            description = "kill, partition, loss, diskfull or flood.")
    String scenarioName;

    @Option(names = "--nodes", paramLabel = "N", description = "Number of nodes (2 to 64). Default: ${DEFAULT-VALUE}.")
    int nodes = 4;

    @Option(names = "--dir", required = true, paramLabel = "DIR", description = "Directory of the testnet (new).")
    Path dir;

    @Mixin
    LocalnetOptions options = new LocalnetOptions();

    @Mixin
    JvmOptions jvm = new JvmOptions();

    @Option(names = "--kills", paramLabel = "K", description = "kill: how many kills. Default: ${DEFAULT-VALUE}.")
    int kills = 50;

    @Option(
            names = "--interval",
            paramLabel = "SECONDS",
            description = "kill: time from one kill to the next (at least the restart). Default: ${DEFAULT-VALUE}.")
    double intervalSeconds = 5;

    @Option(
            names = "--duration",
            paramLabel = "SECONDS",
            description = "partition, loss, diskfull, flood: how long the fault lasts. Default: ${DEFAULT-VALUE}.")
    double durationSeconds = 60;

    @Option(
            names = "--cut",
            paramLabel = "HOW",
            description = "partition: drop (every packet across is dropped; the nodes notice when a keep-alive goes"
                    + " unanswered, about 30 s) or reset (every TCP segment across is answered with a reset: the"
                    + " connections break at once and redials are refused until the heal). Default: ${DEFAULT-VALUE}.")
    String cut = "drop";

    @Option(
            names = "--loss",
            paramLabel = "PERCENT",
            description = "loss: share of incoming packets each node drops. Default: ${DEFAULT-VALUE}.")
    double lossPercent = 10;

    @Option(
            names = "--accuracy-drop",
            paramLabel = "D",
            description = "How far below its value before the faults the mean accuracy may end up. Default:"
                    + " ${DEFAULT-VALUE}.")
    double accuracyDrop = 0.05;

    @Option(
            names = "--settle",
            paramLabel = "SECONDS",
            description = "The longest wait for the nodes to warm up, a restarted node to be ready, the halves to"
                    + " reconnect, the accuracy to come back. Default: ${DEFAULT-VALUE}.")
    int settleSeconds = 120;

    @Option(
            names = "--report",
            paramLabel = "FILE",
            description = "The JSON report. Default: DIR/faults-SCENARIO.json.")
    Path reportFile;

    /** Whether the nodes were stopped and the namespaces deleted. */
    private boolean stopped;

    @Override
    public Integer call() throws IOException, InterruptedException {
        FaultScenario scenario;
        FaultSettings settings;
        try {
            scenario = FaultScenario.parse(scenarioName);
            settings = new FaultSettings(
                    kills,
                    Duration.ofMillis(Math.round(intervalSeconds * 1000)),
                    Duration.ofMillis(Math.round(durationSeconds * 1000)),
                    lossPercent,
                    accuracyDrop,
                    options.seedOptions.seed,
                    cut(cut),
                    Duration.ofSeconds(settleSeconds));
        } catch (IllegalArgumentException e) {
            throw new UserError(e.getMessage());
        }
        if (nodes < 2 || nodes > 64) {
            throw new UserError("--nodes: expected 2 to 64, got " + nodes);
        }
        LocalnetNetwork.requireAvailable(false);
        if (scenario.needsIptables() && !LocalnetNetwork.available("iptables")) {
            throw new UserError(
                    "--scenario " + scenario.label() + ": needs the iptables command, which is not on the PATH");
        }
        if (scenario == FaultScenario.DISKFULL && !LocalnetNetwork.available("mount")) {
            throw new UserError("--scenario diskfull: needs the mount command (for a tmpfs), which is not on the PATH");
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        LocalnetUpCommand up = new LocalnetUpCommand();
        up.nodes = nodes;
        up.dir = dir;
        up.netns = true;
        // A JVM per node starts slowly on a busy machine: at least the default of up.
        up.readyTimeoutSeconds = Math.max(up.readyTimeoutSeconds, settleSeconds);
        up.options = options;
        up.jvm = jvm.orCheckedDefault();
        up.stopsItself = true;
        checkpointOften(options);
        // An invariant on the mean accuracy wants every node to learn both classes: iid shards unless asked otherwise.
        if (!spec.commandLine().getParseResult().hasMatchedOption("--partition")) {
            options.partition = "iid";
        }
        int code = up.start(err, err);
        if (code != 0) {
            return code;
        }
        FaultReport report;
        // Interrupted (Ctrl-C, SIGTERM), the command still stops its nodes and deletes its namespaces.
        Thread onExit = new Thread(() -> {
            try {
                stopAll(err);
            } catch (IOException | RuntimeException e) {
                err.println("chorus: cleanup: " + e.getMessage() + "; run 'chorus testnet down --dir " + dir + "'");
                err.flush();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        Runtime.getRuntime().addShutdownHook(onExit);
        try (FaultNodes running = FaultNodes.open(dir, Main.class)) {
            report = scenario.run(running, settings, err);
        } finally {
            stopAll(err);
            try {
                Runtime.getRuntime().removeShutdownHook(onExit);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs (or ran) already: it finds everything stopped
            }
        }
        StoppedChecks.run(LocalnetManifest.read(dir).nodes(), report);
        report.figure("node JVM options", String.join(" ", jvm.options()));
        report.print(out);
        Path file = reportFile != null ? reportFile : dir.resolve("faults-" + scenario.label() + ".json");
        report.write(file);
        err.println("report written to " + file);
        err.flush();
        return report.passed() ? 0 : 1;
    }

    private static FaultSettings.Cut cut(String name) {
        return switch (name) {
            case "drop" -> FaultSettings.Cut.DROP;
            case "reset" -> FaultSettings.Cut.RESET;
            default -> throw new IllegalArgumentException("--cut: expected drop or reset, got \"" + name + "\"");
        };
    }

    /**
     * A scenario judges checkpoints after a crash, so nodes write one every second (a deployment waits five minutes)
     * unless {@code --set} says otherwise.
     */
    private static void checkpointOften(LocalnetOptions options) {
        for (String key : List.of(ConfigSchema.CHECKPOINT_EVERY, ConfigSchema.CHECKPOINT_EVERY_SECONDS)) {
            if (options.settings.stream().noneMatch(s -> s.startsWith(key + "="))) {
                options.settings.add(key + (key.equals(ConfigSchema.CHECKPOINT_EVERY) ? "=20" : "=1"));
            }
        }
    }

    /** Stops the nodes (those restarted too, as the manifest records them) and deletes the namespaces. */
    private void stopAll(PrintWriter err) throws IOException, InterruptedException {
        // Once: the shutdown hook and the command's own finally may both get here.
        synchronized (this) {
            if (stopped || !Files.exists(dir.resolve(LocalnetManifest.FILE))) {
                return;
            }
            LocalnetManifest m = LocalnetManifest.read(dir);
            LocalnetDownCommand.stop(m.nodes(), Duration.ofSeconds(30), err);
            if (LocalnetDownCommand.deleteNetwork(m, err)) {
                LocalnetDownCommand.forgetNetwork(dir);
            }
            stopped = true;
        }
    }
}
