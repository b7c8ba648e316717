package dev.chorus.cli;

import dev.chorus.node.checkpoint.Checkpoint;
import dev.chorus.node.checkpoint.CheckpointStore;
import dev.chorus.node.config.ConfigException;
import dev.chorus.node.config.ConfigLoader;
import dev.chorus.node.config.ConfigSchema;
import dev.chorus.node.config.NodeConfig;
import dev.chorus.node.daemon.NodeDaemon;
import dev.chorus.node.logging.ChorusLogging;
import dev.chorus.node.logging.LogFormat;
import dev.chorus.node.logging.LogSettings;
import dev.chorus.node.setup.UserError;
import java.io.Closeable;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/** {@code chorus node}: runs the node daemon; rolls its checkpoints back. */
@Command(
        name = "node",
        mixinStandardHelpOptions = true,
        description = "Runs a Chorus node.",
        subcommands = {NodeCommand.Run.class, NodeCommand.Rollback.class})
final class NodeCommand implements Runnable {

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** {@code chorus node run --config node.yaml}. */
    @Command(
            name = "run",
            mixinStandardHelpOptions = true,
            sortOptions = false,
            description = {
                "Runs a node until SIGTERM or SIGINT.",
                "It listens, dials the bootstrap peers, loads the local data, trains, evaluates, checkpoints and serves"
                        + " the HTTP API; on SIGTERM or SIGINT it finishes the current step, checkpoints, closes its"
                        + " connections and exits 0. Every key is documented in docs/config.md."
            })
    static final class Run implements Callable<Integer> {

        @Spec
        CommandLine.Model.CommandSpec spec;

        @Option(names = "--config", required = true, paramLabel = "FILE", description = "The node.yaml to run.")
        Path config;

        @Option(
                names = "--set",
                paramLabel = "KEY=VALUE",
                description = "Overrides a config key (repeatable); the value in YAML syntax.")
        List<String> overrides = new ArrayList<>();

        @Option(names = "--api-port", paramLabel = "PORT", description = "Overrides api.port (0: a free port).")
        Integer apiPort;

        @Option(names = "--listen", paramLabel = "MULTIADDR", description = "Overrides network.listen (repeatable).")
        List<String> listen = new ArrayList<>();

        @Option(
                names = "--bootstrap",
                paramLabel = "MULTIADDR",
                description = "Overrides network.bootstrap (repeatable).")
        List<String> bootstrap = new ArrayList<>();

        @Option(
                names = "--fresh",
                description = "When checkpoints are present but none is usable (corrupt, non-finite weights, another"
                        + " model's shape), start a new model at version 0 instead of refusing to start.")
        boolean fresh;

        @Override
        public Integer call() throws InterruptedException {
            List<String> all = new ArrayList<>(overrides);
            if (apiPort != null) {
                all.add(ConfigSchema.API_PORT + "=" + apiPort);
            }
            if (!listen.isEmpty()) {
                all.add(ConfigSchema.LISTEN + "=" + flowList(listen));
            }
            if (!bootstrap.isEmpty()) {
                all.add(ConfigSchema.BOOTSTRAP + "=" + flowList(bootstrap));
            }
            NodeConfig cfg;
            try {
                cfg = ConfigLoader.load(config, all);
            } catch (ConfigException e) {
                throw new UserError(e.getMessage(), e);
            }
            LogFormat cliFormat = Main.logFormat(spec.root().commandLine().getParseResult());
            NodeConfig.Log log = cfg.operations().log();
            LogFormat format = cliFormat != null ? cliFormat : LogFormat.parse(log.format());
            ChorusLogging.configure(
                    new LogSettings(format, log.level(), log.levels(), log.file() ? cfg.logFile() : null));
            try {
                return runDaemon(cfg);
            } catch (UserError e) {
                throw namingOption(e, cfg);
            } finally {
                // Back to the command's setup: the log file is flushed and closed.
                ChorusLogging.configure(LogSettings.command(format));
            }
        }

        /**
         * A failure to listen reported against the config file, reworded to name the option the user typed when
         * {@code --listen}, {@code --api-port} or {@code --set} gave the value.
         */
        private UserError namingOption(UserError e, NodeConfig cfg) {
            for (String key : List.of(ConfigSchema.LISTEN, ConfigSchema.API_PORT)) {
                String fromFile = cfg.configFile() + ": " + key + ": ";
                if (!e.getMessage().startsWith(fromFile)) {
                    continue;
                }
                String option = key.equals(ConfigSchema.LISTEN) ? "--listen" : "--api-port";
                boolean typed = key.equals(ConfigSchema.LISTEN) ? !listen.isEmpty() : apiPort != null;
                if (!typed && overrides.stream().anyMatch(o -> o.strip().startsWith(key + "="))) {
                    option = "--set " + key;
                    typed = true;
                }
                if (typed) {
                    return new UserError(option + ": " + e.getMessage().substring(fromFile.length()), e);
                }
            }
            return e;
        }

        private int runDaemon(NodeConfig cfg) throws InterruptedException {
            NodeDaemon daemon;
            try {
                daemon = NodeDaemon.start(
                        cfg,
                        List.of(),
                        fresh ? NodeDaemon.UnusableCheckpoints.START_FRESH : NodeDaemon.UnusableCheckpoints.REFUSE);
            } catch (ConfigException e) {
                throw new UserError(e.getMessage(), e);
            }
            CountDownLatch stop = new CountDownLatch(1);
            List<Runnable> restore = new ArrayList<>();
            for (String name : new String[] {"TERM", "INT"}) {
                Signal signal = new Signal(name);
                SignalHandler previous = Signal.handle(signal, s -> stop.countDown());
                restore.add(() -> Signal.handle(signal, previous));
            }
            try {
                PrintWriter out = spec.commandLine().getOut();
                out.println("peer " + daemon.peerId() + " consortium " + daemon.consortium());
                for (String a : daemon.listenAddrs()) {
                    out.println("listening on " + a);
                }
                if (daemon.apiPort() >= 0) {
                    out.println(
                            "api http://" + daemon.config().operations().api().host() + ":" + daemon.apiPort() + "/");
                }
                out.flush();
                stop.await();
            } finally {
                daemon.close();
                restore.forEach(Runnable::run);
            }
            spec.commandLine()
                    .getOut()
                    .println("stopped at model version " + daemon.metrics().version());
            spec.commandLine().getOut().flush();
            return 0;
        }

        private static String flowList(List<String> items) {
            List<String> quoted = new ArrayList<>();
            for (String s : items) {
                quoted.add("\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"");
            }
            return "[" + String.join(", ", quoted) + "]";
        }
    }

    /** {@code chorus node rollback --to VERSION|TIME --config node.yaml}. */
    @Command(
            name = "rollback",
            mixinStandardHelpOptions = true,
            sortOptions = false,
            description = {
                "Makes an older checkpoint the newest, so that `node run` resumes from it (after a poisoned model).",
                "VERSION picks the checkpoint of that model version, TIME (ISO-8601, e.g. 2025-03-01T12:00:00Z) the"
                        + " newest written at or before it. The newer checkpoints are moved, not deleted, into"
                        + " data_dir/checkpoints/rolled-back-<time>/. The node must be stopped: the command refuses"
                        + " while a node holds the data directory's lock (data_dir/node.lock), and holds it itself"
                        + " meanwhile."
            })
    static final class Rollback implements Callable<Integer> {

        @Spec
        CommandLine.Model.CommandSpec spec;

        @Option(names = "--config", required = true, paramLabel = "FILE", description = "The node's node.yaml.")
        Path config;

        @Option(
                names = "--to",
                required = true,
                paramLabel = "VERSION|TIME",
                description = "A checkpoint's model version, or an ISO-8601 time.")
        String to;

        @Override
        public Integer call() throws IOException {
            NodeConfig cfg;
            try {
                cfg = ConfigLoader.load(config, List.of());
            } catch (ConfigException e) {
                throw new UserError(e.getMessage(), e);
            }
            Closeable lock = lockUnlessMissing(cfg);
            try {
                return rollBack(cfg);
            } finally {
                lock.close();
            }
        }

        private int rollBack(NodeConfig cfg) throws IOException {
            NodeConfig.Checkpoints kept = cfg.operations().checkpoints();
            CheckpointStore store = new CheckpointStore(
                    cfg.checkpointDir(),
                    new CheckpointStore.Retention(kept.keep(), kept.hourlyForHours(), kept.dailyForDays()),
                    InstantSource.system());
            Checkpoint target = find(store);
            Optional<Path> aside = store.rollBackTo(target.version());
            PrintWriter out = spec.commandLine().getOut();
            out.println("rolled back to checkpoint version " + target.version() + " of "
                    + Instant.ofEpochMilli(target.createdMillis()) + " (" + target.steps() + " steps, validation loss "
                    + target.metrics().getOrDefault("loss", Double.NaN) + "); `node run` resumes from it");
            out.println(aside.map(p -> "the newer checkpoints were moved to " + p)
                    .orElse("it was already the newest: nothing moved"));
            out.flush();
            return 0;
        }

        private Checkpoint find(CheckpointStore store) {
            String where = " in " + store.directory();
            if (to.strip().matches("\\d+")) {
                long version = Long.parseLong(to.strip());
                return store.load(version)
                        .orElseThrow(() -> new UserError("--to " + to + ": no readable checkpoint of version " + version
                                + where + " (there are " + store.versions() + ")"));
            }
            Instant time;
            try {
                time = Instant.parse(to.strip());
            } catch (DateTimeParseException e) {
                throw new UserError(
                        "--to " + to + ": neither a version nor an ISO-8601 time such as 2025-03-01T12:00:00Z", e);
            }
            return store.loadNewestAtOrBefore(time)
                    .orElseThrow(
                            () -> new UserError("--to " + to + ": no checkpoint written at or before " + time + where));
        }

        /**
         * Takes the data directory's lock that a running node holds, so that the checkpoints do not move under a node,
         * nor a node start while they move. A missing data directory has no checkpoints and nothing to lock.
         */
        private static Closeable lockUnlessMissing(NodeConfig cfg) {
            if (!Files.isDirectory(cfg.node().dataDir())) {
                return () -> {};
            }
            try {
                return NodeDaemon.lockDataDirectory(cfg, "stop it before rolling back");
            } catch (ConfigException e) {
                throw new UserError(e.getMessage(), e);
            }
        }
    }
}
