package dev.chorus.cli;

import dev.chorus.gossip.host.Host;
import dev.chorus.learning.data.CsvData;
import dev.chorus.learning.data.DataException;
import dev.chorus.learning.data.Dataset;
import dev.chorus.learning.data.IdxData;
import dev.chorus.learning.optim.LearningRateSchedule;
import dev.chorus.learning.partition.Partitioner;
import dev.chorus.node.BundledData;
import dev.chorus.node.DataAdvice;
import dev.chorus.node.averaging.AveragingDefaults;
import dev.chorus.node.averaging.AveragingEngine;
import dev.chorus.node.averaging.RobustRule;
import dev.chorus.node.averaging.StrategySettings;
import dev.chorus.node.logging.ChorusLogging;
import dev.chorus.node.logging.LogFormat;
import dev.chorus.node.logging.LogSettings;
import dev.chorus.node.membership.MembershipGate;
import dev.chorus.node.protocol.Dtype;
import dev.chorus.node.setup.OutputDirectory;
import dev.chorus.node.setup.UserError;
import dev.chorus.testnet.ByzantineAttack;
import dev.chorus.testnet.ForkedRun;
import dev.chorus.testnet.Impairment;
import dev.chorus.testnet.PlannedRun;
import dev.chorus.testnet.StrategyKind;
import dev.chorus.testnet.SummaryTable;
import dev.chorus.testnet.Testnet;
import dev.chorus.testnet.TestnetData;
import dev.chorus.testnet.TestnetReport;
import dev.chorus.testnet.TestnetRun;
import dev.chorus.testnet.TestnetSettings;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code chorus testnet}: many real nodes on loopback in this JVM, with stragglers and slow links. */
@Command(
        name = "testnet",
        mixinStandardHelpOptions = true,
        subcommands = {
            dev.chorus.cli.LocalnetUpCommand.class,
            dev.chorus.cli.LocalnetDownCommand.class,
            dev.chorus.cli.LocalnetComposeCommand.class,
            dev.chorus.cli.LocalnetFaultsCommand.class,
            dev.chorus.cli.LocalnetSoakCommand.class
        },
        sortOptions = false,
        optionListHeading = "Options:%n",
        abbreviateSynopsis = true,
        description = {
            "Runs N real nodes (libp2p on loopback, in this JVM) that train on shards of one data set and average"
                    + " with the chosen strategy; scores every node on a common test set every few seconds.",
            "Writes samples.csv, accuracy.png and summary.json to --out.",
            "'testnet up' and 'testnet down' start and stop daemons as separate processes instead; 'testnet"
                    + " compose' writes a testnet for Docker Compose."
        })
public final class TestnetCommand implements Callable<Integer> {

    /**
     * How every testnet (in process, {@code up}, {@code compose}) and the demo split the data by default: label skew
     * strong enough that a node alone scores visibly worse than the consortium, yet every node of a small testnet
     * gets both classes of the bundled data.
     */
    static final String DEFAULT_PARTITION = "dirichlet:0.5";

    /**
     * The options for experiments (comparisons, measurement, attacks, averaging parameters), listed in a section of
     * their own after the everyday ones so that a first look at the help finds how to run a testnet.
     */
    static final Set<String> RESEARCH_OPTIONS = Set.of(
            "--ideal",
            "--ideal-first",
            "--fork",
            "--byzantine",
            "--outsiders",
            "--link-mbit",
            "--max-steps-per-second",
            "--target-accuracy",
            "--exchange-every",
            "--max-drift",
            "--straggler-compensation",
            "--max-in-flight",
            "--weighting",
            "--dtype",
            "--lr-schedule",
            "--degree",
            "--fragments",
            "--fanout",
            "--fragment-balance",
            "--screening",
            "--clip-multiplier",
            "--eval-rows",
            "--test-fraction",
            "--robust",
            "--dropouts",
            "--phase-timeout");

    private static final String RESEARCH_HEADING = "researchOptionListHeading";
    private static final String RESEARCH_LIST = "researchOptionList";

    /** Where the files go by default: a directory of the working directory that the repository's .gitignore covers. */
    static final String DEFAULT_OUT = ".chorus/testnet";

    /** The shortest evaluation interval: below it, evaluations crowd out training and most report no node. */
    static final Duration MIN_EVAL_INTERVAL = Duration.ofMillis(100);

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(
            names = "--nodes",
            paramLabel = "N",
            description = "Nodes, 2 to " + TestnetSettings.MAX_NODES + ". Default: ${DEFAULT-VALUE}.")
    int nodes = 4;

    @Mixin
    DataOptions dataOptions = new DataOptions();

    @Option(
            names = "--partition",
            paramLabel = "METHOD",
            description = "iid, dirichlet:A, size:A (column:NAME only with 'testnet up'). Default: ${DEFAULT-VALUE}.")
    String partition = DEFAULT_PARTITION;

    @Option(
            names = "--strategy",
            paramLabel = "NAME",
            description = "async, fragmented, fedbuff, sync, secure, alone or central. Default: ${DEFAULT-VALUE}.")
    String strategy = StrategyKind.ASYNC.id();

    @Option(
            names = "--compare",
            paramLabel = "NAMES",
            split = ",",
            description = "Distinct strategies run one after another on the same partition and seed (overrides"
                    + " --strategy).")
    List<String> compare = new ArrayList<>();

    @Option(
            names = "--ideal",
            description = "Also run each strategy without stragglers and slow links (labelled NAME-ideal).")
    boolean ideal;

    @Option(
            names = "--ideal-first",
            description = "With --ideal, measure each strategy's run without impairments before its impaired one"
                    + " (the default is the other way round): a check that the order of the runs does not bias the"
                    + " comparison.")
    boolean idealFirst;

    @Option(
            names = "--fork",
            description = "Run each measured run, with its warm-up, in a fresh JVM of its own, so that no run starts"
                    + " from the JIT state that another one left (on a machine with few cores, the run measured first"
                    + " in one JVM was the slower for it).")
    boolean fork;

    /** Set in a JVM that {@code --fork} started: the one run it measures, {@code STRATEGY:impaired|ideal}. */
    @Option(names = "--fork-child", hidden = true, paramLabel = "RUN")
    String forkChild;

    /** Set with {@link #forkChild}: the file the run's result goes to. */
    @Option(names = "--fork-result", hidden = true, paramLabel = "FILE")
    Path forkResult;

    @Option(
            names = "--stragglers",
            paramLabel = "FRACTION:FACTOR",
            description = "Share of nodes whose compute is FACTOR times slower. Default: none.")
    String stragglers;

    @Option(
            names = "--slow-links",
            paramLabel = "FRACTION:MBIT",
            description = "Share of nodes whose links carry MBIT Mbit/s (each way). Default: none.")
    String slowLinks;

    @Option(
            names = "--byzantine",
            paramLabel = "FRACTION:ATTACK",
            description = "Share of nodes (below 0.5) that train as usual but send crafted models: signflip:K (-K times"
                    + " the model), scale:K, noise:SIGMA (plus Gaussian noise), freeride (the initial model), stale"
                    + " (what it sent first), alie (A Little Is Enough), ipm:EPS (-EPS times the honest mean), labelflip (trains on"
                    + " flipped labels). Never node 0."
                    + " Default: none.")
    String byzantine;

    @Option(names = "--link-mbit", paramLabel = "MBIT", description = "Bandwidth of the other nodes; 0: unlimited.")
    double linkMbit;

    @Option(names = "--duration", paramLabel = "TIME", description = "Training time per run (120s, 2m). Default: 30s.")
    String duration = "30s";

    @Option(
            names = "--eval-every",
            paramLabel = "TIME",
            description = "Evaluation interval, at least 100ms. Default: 2s.")
    String evalEvery = "2s";

    @Option(
            names = "--warmup",
            paramLabel = "TIME",
            description = "Before the measured runs, run each strategy this long, unreported and as it will be"
                    + " measured, so that no measured run pays for Java compiling the training and exchange code;"
                    + " while Java is still compiling, the warm-up goes on, and the run after it waits, but never"
                    + " more than twice this time in all. 0s for none. Default: 5s.")
    String warmup = "5s";

    @Option(
            names = "--max-steps-per-second",
            paramLabel = "R",
            description = "The most steps a second each unimpaired node takes (stragglers take their factor times"
                    + " fewer); 0: no bound. A bound below what the machine gives every node keeps the other nodes"
                    + " from training faster on the CPU the stragglers' pauses leave. Default: ${DEFAULT-VALUE}.")
    double maxStepsPerSecond = 0;

    @Option(names = "--target-accuracy", paramLabel = "A", description = "Default: ${DEFAULT-VALUE}.")
    double targetAccuracy = 0.9;

    @Mixin
    SeedOptions seedOptions = new SeedOptions();

    @Mixin
    ModelOptions modelOptions = new ModelOptions();

    @Mixin
    BatchOptions batchOptions = new BatchOptions();

    @Option(names = "--exchange-every", paramLabel = "K", description = "Steps per round. Default: ${DEFAULT-VALUE}.")
    int exchangeEvery = AveragingDefaults.EXCHANGE_EVERY_STEPS;

    @Option(
            names = "--max-drift",
            paramLabel = "H",
            description = "Asynchronous strategies: the most steps a node takes past its last completed exchange"
                    + " while one of its own is in flight, so that it does not drift on its own shard between"
                    + " merges (0: never wait). Default: ${DEFAULT-VALUE}.")
    int maxDrift = AveragingDefaults.MAX_DRIFT_STEPS;

    @Option(
            names = "--straggler-compensation",
            paramLabel = "X",
            description = "async, fragmented: the largest factor by which a node slower than the consortium scales"
                    + " what it learns between merges, by the consortium's pace over its own"
                    + " (averaging.straggler_compensation; 1: off). Default: ${DEFAULT-VALUE}.")
    double stragglerCompensation = AveragingDefaults.STRAGGLER_COMPENSATION;

    @Option(
            names = "--max-in-flight",
            paramLabel = "N",
            description = "Each node's outbound exchanges in progress at once (at most 2 with any one peer); more"
                    + " wait in the strategy's queue. 0: 4 for async and fragmented (a daemon's bound), max(8, 4N)"
                    + " for sync and fedbuff. Default: ${DEFAULT-VALUE}.")
    int maxInFlight = 0;

    @Option(
            names = "--weighting",
            paramLabel = "uniform|samples",
            description = "How asynchronous strategies weight a received model: uniformly, or by its node's"
                    + " sample count (FedAvg's n_k/n). Default: ${DEFAULT-VALUE}.")
    String weighting = AveragingDefaults.WEIGHT_BY_SAMPLES ? "samples" : "uniform";

    @Option(
            names = "--dtype",
            paramLabel = "f32|f16|bf16|int8",
            description = "Encoding of exchanged models: f32, or quantized to f16, bf16 or int8 (per-chunk scale);"
                    + " fewer bytes per exchange, so more exchanges on slow links. Default: ${DEFAULT-VALUE}.")
    String dtype = "f32";

    @Option(
            names = "--lr-schedule",
            paramLabel = "constant|cosine[:FLOOR]",
            description = "Each node's learning rate over the run: constant, or annealed along a cosine from the"
                    + " optimizer's rate to FLOOR times it (default 0.05) at the end of --duration, which lets"
                    + " nodes on skewed shards settle near their consensus. Default: ${DEFAULT-VALUE}.")
    String lrSchedule = "cosine";

    @Mixin
    BackendOptions backendOptions = new BackendOptions("cpu");

    @Option(
            names = "--degree",
            paramLabel = "D",
            description = "Peers per node; 0: full mesh. Default: ${DEFAULT-VALUE}.")
    int degree = 8;

    @Option(
            names = "--fragments",
            paramLabel = "F",
            description = "Fragmented strategy. Default: 10, fewer so that each fragment holds at least 4096"
                    + " parameters (one, the whole model, for a model under 8192).")
    Integer fragments;

    @Option(names = "--fanout", paramLabel = "S", description = "Fragmented strategy. Default: ${DEFAULT-VALUE}.")
    int fanout = 3;

    @Option(
            names = "--fragment-balance",
            negatable = true,
            // With only the field's initializer, picocli would leave the negated form without effect.
            defaultValue = "true",
            fallbackValue = "true",
            description = "Fragmented strategy: each node scales the share of its average taken from what it"
                    + " received by its ratio of coordinates delivered to received, so that a node behind a slow"
                    + " link keeps its share of the consensus; --no-fragment-balance: DivShare as published."
                    + " Default: ${DEFAULT-VALUE}.")
    boolean fragmentBalance;

    @Option(
            names = "--screening",
            paramLabel = "MODE",
            description =
                    "Async, fragmented and sync: `clip` clips each received model's difference from the node's own"
                            + " to a radius adapted from recent merges, drops models beyond twice the radius, pointing"
                            + " away from the node's own or repeating one their sender sent before, and excludes peers"
                            + " whose models keep being far (averaging.screening); `clip-all` merges the far and opposed"
                            + " ones clipped; `off` merges every finite model. In sync a dropped model counts as the"
                            + " node's own. Default: ${DEFAULT-VALUE}.")
    String screening = AveragingDefaults.SCREENING.configName();

    @Option(
            names = "--clip-multiplier",
            paramLabel = "M",
            description = "With --screening clip: the radius as a multiple of the median distance of recently"
                    + " merged models (averaging.clip_multiplier). Default: ${DEFAULT-VALUE}.")
    double clipMultiplier = AveragingDefaults.SCREENING.multiplier();

    @Option(
            names = "--eval-rows",
            paramLabel = "N",
            description = "Test rows scored (0: all). Default: ${DEFAULT-VALUE}.")
    int evalRows = 2000;

    @Option(
            names = "--test-fraction",
            paramLabel = "F",
            description = "Held-out share of a CSV. Default: ${DEFAULT-VALUE}.")
    double testFraction = 0.2;

    @Option(
            names = "--robust",
            paramLabel = "RULE",
            description = "sync and fedbuff: the robust rule replacing the weighted mean (" + RobustRule.FORMS
                    + "); refused for async and fragmented. Default: ${DEFAULT-VALUE}.")
    String robust = "none";

    @Option(
            names = "--group-size",
            paramLabel = "G",
            description = "secure: the largest group of a round (averaging.group_size; at least 3)."
                    + " Default: ${DEFAULT-VALUE}.")
    int groupSize = TestnetSettings.Secure.DEFAULT.groupSize();

    @Option(
            names = "--dropouts",
            paramLabel = "F",
            description = "secure: the fraction of the rounds it joins in which a member goes silent part way"
                    + " through, as one whose connection dies would (evenly spaced, the nodes out of step, at each of"
                    + " its five messages in turn). Default: ${DEFAULT-VALUE}.")
    double dropouts = 0;

    @Option(
            names = "--phase-timeout",
            paramLabel = "TIME",
            description = "secure: how long each phase of a round may last (averaging.secure_phase_timeout_seconds);"
                    + " a member silent past it is a dropout. Default: 5s.")
    String phaseTimeout = "5s";

    @Option(
            names = "--slow-links-relay",
            arity = "0..1",
            fallbackValue = "true",
            paramLabel = "auto|true|false",
            description = "secure: averaging.secure_relay of the nodes on slow links (every other node runs the"
                    + " default, auto): auto finds the slower link from the node's own rounds and declines the"
                    + " relay's role; false declines it from the start, as the operator of a link known to be thin"
                    + " sets it; true (or the option alone) keeps it. Default: auto.")
    String slowLinksRelay = "auto";

    @Option(
            names = "--offer-window",
            paramLabel = "TIME",
            description = "secure: the length of a round's window (averaging.secure_offer_window_seconds); a round that"
                    + " ends within its window is followed at once by the window's next round. Default: 0.5s.")
    String offerWindow = "0.5s";

    @Option(
            names = "--outsiders",
            paramLabel = "N",
            description = "Hosts with valid keys and no member certificate that, throughout each run that exchanges,"
                    + " try five times a second to connect to every node, pull its model, push a poisoned one and"
                    + " publish announcements; the report counts what they got, and any model byte, accepted update"
                    + " or delivered message fails the command. 0 to " + TestnetSettings.MAX_OUTSIDERS
                    + ". Default: ${DEFAULT-VALUE}.")
    int outsiders = 0;

    @Option(names = "--json", description = "Print the JSON summary only.")
    boolean json;

    @Option(names = "--out", paramLabel = "DIR", description = "Output directory. Default: ${DEFAULT-VALUE}.")
    Path out = Path.of(DEFAULT_OUT);

    @Override
    public Integer call() throws Exception {
        List<StrategyKind> kinds;
        TestnetSettings settings;
        try {
            if (nodes < 2 || nodes > TestnetSettings.MAX_NODES) {
                throw new IllegalArgumentException("--nodes: a testnet has at least 2 and at most "
                        + TestnetSettings.MAX_NODES + " nodes, got " + nodes);
            }
            kinds = strategies();
            dataOptions.refuseIgnored();
            checkPartition(partition);
            settings = settings();
            for (StrategyKind k : kinds) {
                Testnet.checkRobust(settings, k);
            }
        } catch (IllegalArgumentException e) {
            throw new UserError(e.getMessage());
        }
        boolean child = forkChild != null;
        List<PlannedRun> plan = runPlan(kinds, child);
        if (outsiders > 0) {
            quietRefusals();
        }
        if (!child) {
            OutputDirectory.check("--out", out);
            noteEmptyImpairment(
                    "--stragglers", stragglers, settings.impairments().stragglers());
            noteEmptyImpairment(
                    "--slow-links", slowLinks, settings.impairments().slowLinks());
            noteEmptyImpairment(
                    "--byzantine",
                    byzantine,
                    new Impairment(settings.impairments().byzantine().fraction(), 1));
        }
        PrintWriter pw = spec.commandLine().getOut();
        TestnetData d = load(settings);
        Testnet testnet;
        try {
            testnet = new Testnet(settings, d);
        } catch (IllegalArgumentException e) {
            throw new UserError(e.getMessage());
        }
        String described = described();
        if (!json && !child) {
            printHeader(pw, described, d, testnet);
        }
        List<TestnetRun> runs = new ArrayList<>();
        List<TestnetRun> warmUps = new ArrayList<>();
        if (fork && !child && plan.size() > 1) {
            runForked(plan, pw, warmUps, runs);
        } else {
            if (!settings.evaluation().warmup().isZero()) {
                warmUps.addAll(warmUp(settings, d, plan, pw));
            }
            for (PlannedRun p : plan) {
                runs.add(testnet.run(p.kind(), p.impaired(), line -> progress(pw, line)));
            }
        }
        if (child) {
            ForkedRun.write(
                    forkResult,
                    new ForkedRun.Result(
                            warmUps, runs.getFirst(), ProcessHandle.current().pid()));
            return 0;
        }
        String summary = TestnetReport.json(settings, described, testnet.fragments(), warmUps, runs);
        TestnetReport.write(out, settings, described, runs, summary);
        if (json) {
            pw.println(summary);
        } else {
            printSummary(pw, runs);
        }
        pw.flush();
        return checkMembership(warmUps, runs);
    }

    /**
     * 0, or 1 after a line on standard error for each run (warm-ups too) in which outsiders got a model byte, an
     * update accepted or a message delivered: a breach of the membership, which no report should pass over.
     */
    private int checkMembership(List<TestnetRun> warmUps, List<TestnetRun> runs) {
        List<TestnetRun> all = new ArrayList<>(warmUps);
        all.addAll(runs);
        List<String> breaches = SummaryTable.breaches(all);
        if (breaches.isEmpty()) {
            return 0;
        }
        PrintWriter err = spec.commandLine().getErr();
        breaches.forEach(line -> err.println("chorus: " + line));
        err.flush();
        return 1;
    }

    /**
     * The settings the options give, checked option by option in the order the checks have always run, so that the
     * first of several bad options is the one reported; an {@link IllegalArgumentException} names what is wrong.
     */
    private TestnetSettings settings() {
        Impairment st =
                stragglers == null ? Impairment.NONE : Impairment.parse("--stragglers", stragglers, "FACTOR", 1, true);
        Impairment sl =
                slowLinks == null ? Impairment.NONE : Impairment.parse("--slow-links", slowLinks, "MBIT", 0, false);
        checkCounts();
        Duration runDuration = duration("--duration", duration);
        if (runDuration.isNegative() || runDuration.isZero()) {
            throw new IllegalArgumentException("--duration must be positive, got \"" + duration + "\"");
        }
        Duration evalInterval = duration("--eval-every", evalEvery);
        if (evalInterval.compareTo(MIN_EVAL_INTERVAL) < 0) {
            throw new IllegalArgumentException(
                    "--eval-every must be at least " + MIN_EVAL_INTERVAL.toMillis() + "ms, got \"" + evalEvery + "\"");
        }
        if (idealFirst && !ideal) {
            throw new IllegalArgumentException("--ideal-first orders the runs that --ideal adds; give --ideal too");
        }
        Duration warmupDuration = duration("--warmup", warmup);
        if (warmupDuration.isNegative()) {
            throw new IllegalArgumentException("--warmup must not be negative, got \"" + warmup + "\"");
        }
        boolean bySampleCount =
                switch (weighting) {
                    case "uniform" -> false;
                    case "samples" -> true;
                    default ->
                        throw new IllegalArgumentException(
                                "--weighting must be uniform or samples, got '" + weighting + "'");
                };
        Dtype exchangeDtype = parseDtype(dtype);
        LearningRateSchedule schedule = LearningRateSchedule.parse(lrSchedule);
        return new TestnetSettings(
                new TestnetSettings.Topology(nodes, degree, linkMbit),
                new TestnetSettings.Training(
                        partition,
                        modelOptions.model,
                        modelOptions.optimizer,
                        batchOptions.batch,
                        backendOptions.backend,
                        schedule,
                        maxStepsPerSecond),
                new TestnetSettings.Averaging(
                        exchangeEvery,
                        new AveragingEngine.Config.Training(maxDrift, stragglerCompensation),
                        maxInFlight,
                        bySampleCount,
                        new TestnetSettings.Averaging.Fragmenting(
                                fragments == null ? 0 : fragments, fanout, fragmentBalance),
                        exchangeDtype,
                        robustRule(),
                        new StrategySettings.Screening(parseScreening(screening), clipMultiplier)),
                new TestnetSettings.Impairments(st, sl, byzantine()),
                new TestnetSettings.Evaluation(runDuration, evalInterval, warmupDuration, targetAccuracy, evalRows),
                seedOptions.seed,
                outsiders,
                secure());
    }

    /** The {@code secure} options, each time named with its rule when it is too short. */
    private TestnetSettings.Secure secure() {
        Duration timeout = atLeast10ms("--phase-timeout", phaseTimeout);
        Duration window = atLeast10ms("--offer-window", offerWindow);
        dev.chorus.node.secagg.RelayRole.Setting relay;
        try {
            relay = dev.chorus.node.secagg.RelayRole.Setting.parse(slowLinksRelay);
        } catch (IllegalArgumentException e) {
            throw new picocli.CommandLine.ParameterException(
                    spec.commandLine(), "--slow-links-relay is auto, true or false, not '" + slowLinksRelay + "'");
        }
        return new TestnetSettings.Secure(groupSize, dropouts, timeout, relay, window);
    }

    /** The time {@code text} of {@code option}, refused with the option's name when under 10 ms. */
    private static Duration atLeast10ms(String option, String text) {
        Duration d = duration(option, text);
        if (d.toMillis() < 10) {
            throw new IllegalArgumentException(option + " must be at least 10ms, got \"" + text + "\"");
        }
        return d;
    }

    /** {@code --byzantine FRACTION:ATTACK}, or none. */
    private TestnetSettings.Byzantine byzantine() {
        if (byzantine == null) {
            return TestnetSettings.Byzantine.NONE;
        }
        String s = byzantine.strip();
        int colon = s.indexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException(
                    "--byzantine expects FRACTION:ATTACK, e.g. 0.2:signflip:4, got \"" + byzantine + "\"");
        }
        double fraction;
        try {
            fraction = Double.parseDouble(s.substring(0, colon).strip());
        } catch (NumberFormatException e) {
            fraction = Double.NaN;
        }
        if (!(fraction >= 0 && fraction < 0.5)) {
            throw new IllegalArgumentException("--byzantine fraction must lie in [0, 0.5), got "
                    + s.substring(0, colon).strip() + " in \"" + byzantine + "\"");
        }
        return new TestnetSettings.Byzantine(fraction, ByzantineAttack.parse("--byzantine", s.substring(colon + 1)));
    }

    private RobustRule robustRule() {
        try {
            return RobustRule.parse(robust);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--robust: " + e.getMessage(), e);
        }
    }

    /** The mode {@code --screening} names. */
    private static StrategySettings.Screening.Mode parseScreening(String mode) {
        try {
            return StrategySettings.Screening.Mode.parse(mode.toLowerCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--screening: " + e.getMessage(), e);
        }
    }

    /** The numeric options' bounds. */
    private void checkCounts() {
        if (fragments != null) {
            atLeast("--fragments", fragments, 1);
        }
        atLeast("--batch", batchOptions.batch, 1);
        atLeast("--exchange-every", exchangeEvery, 1);
        atLeast("--fanout", fanout, 1);
        atLeast("--degree", degree, 0);
        atLeast("--eval-rows", evalRows, 0);
        atLeast("--max-drift", maxDrift, 0);
        if (!(stragglerCompensation >= 1) || Double.isInfinite(stragglerCompensation)) {
            throw new IllegalArgumentException(
                    "--straggler-compensation must be a number of at least 1 (1: off), got " + stragglerCompensation);
        }
        atLeast("--max-in-flight", maxInFlight, 0);
        if (!(linkMbit >= 0) || Double.isInfinite(linkMbit)) {
            throw new IllegalArgumentException("--link-mbit must be 0 (unlimited) or positive, got " + linkMbit);
        }
        if (!(maxStepsPerSecond >= 0) || Double.isInfinite(maxStepsPerSecond)) {
            throw new IllegalArgumentException(
                    "--max-steps-per-second must be 0 (no bound) or positive, got " + maxStepsPerSecond);
        }
        if (!(testFraction > 0 && testFraction < 1)) {
            throw new IllegalArgumentException("--test-fraction must lie strictly between 0 and 1");
        }
        if (outsiders < 0 || outsiders > TestnetSettings.MAX_OUTSIDERS) {
            throw new IllegalArgumentException(
                    "--outsiders must lie in [0, " + TestnetSettings.MAX_OUTSIDERS + "], got " + outsiders);
        }
    }

    /**
     * Leaves the refusals of outsiders out of the log: the nodes refuse them by the hundreds, each with two warnings
     * (the gate's and the host's), and the report counts what they tried. Only errors of these two loggers remain.
     */
    private void quietRefusals() {
        LogFormat format = Main.logFormat(spec.root().commandLine().getParseResult());
        ChorusLogging.configure(new LogSettings(
                format == null ? LogFormat.TEXT : format,
                LogSettings.COMMAND_LEVEL,
                Map.of(MembershipGate.class.getName(), "error", Host.class.getName(), "error"),
                null));
    }

    /** The runs this JVM measures: the one {@code --fork-child} names in a child, else the whole {@link #plan}. */
    private List<PlannedRun> runPlan(List<StrategyKind> kinds, boolean child) {
        try {
            if (child && forkResult == null) {
                throw new IllegalArgumentException("--fork-child needs --fork-result");
            }
            return child ? List.of(ForkedRun.parse(forkChild)) : plan(kinds);
        } catch (IllegalArgumentException e) {
            throw new UserError(e.getMessage());
        }
    }

    private void printHeader(PrintWriter pw, String described, TestnetData d, Testnet testnet) {
        pw.printf(
                Locale.ROOT,
                "testnet: %d nodes, data %s (%d training rows, %d test rows%s), %s, model %s, seed %d%n",
                nodes,
                described,
                d.train().rows(),
                d.heldOut().rows(),
                d.test() == d.heldOut() ? "" : ", " + d.test().rows() + " scored while training",
                d.partition(),
                modelOptions.model,
                seedOptions.seed);
        pw.printf(
                Locale.ROOT,
                "stragglers %s, slow links %s%n",
                java.util.Arrays.toString(testnet.stragglers()),
                java.util.Arrays.toString(testnet.slowLinks()));
        if (testnet.attackers().length > 0) {
            pw.printf(
                    Locale.ROOT,
                    "attackers %s, sending %s (scores summarized over the other nodes)%n",
                    java.util.Arrays.toString(testnet.attackers()),
                    testnet.attack().text());
        }
        if (outsiders > 0) {
            pw.printf(
                    Locale.ROOT,
                    "membership: each node an institution with its own CA; %d %s without a certificate attack every"
                            + " node%n",
                    outsiders,
                    outsiders == 1 ? "outsider" : "outsiders");
        }
        pw.flush();
    }

    /** Runs each planned run, with its warm-up, in a JVM of its own, and collects what the children measured. */
    private void runForked(List<PlannedRun> plan, PrintWriter pw, List<TestnetRun> warmUps, List<TestnetRun> runs)
            throws IOException, InterruptedException {
        for (PlannedRun p : plan) {
            ForkedRun.Result r = forked(p, pw);
            progress(pw, "fork: " + ForkedRun.id(p.kind(), p.impaired()) + " ran in JVM " + r.pid());
            warmUps.addAll(r.warmUps());
            runs.add(r.run());
        }
    }

    /**
     * One row per measured run: its final accuracy, AUC and balanced accuracy over the nodes, and its times to the
     * target (see {@link SummaryTable}).
     */
    private void printSummary(PrintWriter pw, List<TestnetRun> runs) {
        SummaryTable.lines(runs, targetAccuracy).forEach(pw::println);
        SummaryTable.outsiderLines(runs).forEach(pw::println);
        pw.println("wrote " + out.resolve("samples.csv") + ", " + out.resolve("accuracy.png") + ", "
                + out.resolve("summary.json"));
    }

    /**
     * The measured runs in the order they run: each strategy's impaired run, and with {@code --ideal} (for the
     * strategies that exchange) its run without impairments after it, or before it with {@code --ideal-first}.
     */
    private List<PlannedRun> plan(List<StrategyKind> kinds) {
        List<PlannedRun> plan = new ArrayList<>();
        for (StrategyKind k : kinds) {
            boolean alsoIdeal = ideal && k.exchanges();
            if (alsoIdeal && idealFirst) {
                plan.add(new PlannedRun(k, false));
            }
            plan.add(new PlannedRun(k, true));
            if (alsoIdeal && !idealFirst) {
                plan.add(new PlannedRun(k, false));
            }
        }
        return plan;
    }

    /**
     * The warm-up runs: each planned run once, unreported, in the plan's order, on a testnet of its own whose
     * duration is the warm-up's. The warm-up runs what the measured runs will, so that the code only the
     * impairments use (pacing, shaping at other rates) is compiled before any run is measured too.
     */
    private List<TestnetRun> warmUp(TestnetSettings settings, TestnetData d, List<PlannedRun> plan, PrintWriter pw)
            throws InterruptedException {
        Testnet warm = new Testnet(settings.withDuration(settings.evaluation().warmup()), d);
        List<TestnetRun> warmUps = new ArrayList<>();
        for (int i = 0; i < plan.size(); i++) {
            PlannedRun p = plan.get(i);
            boolean twice = i + 1 < plan.size() && plan.get(i + 1).kind() == p.kind();
            boolean second = i > 0 && plan.get(i - 1).kind() == p.kind();
            if (!second) {
                String variants = twice
                        ? p.impaired()
                                ? ", then again without impairments"
                                : " without impairments, then again with them"
                        : p.impaired() || !warm.anyImpairment() ? "" : " without impairments";
                progress(
                        pw,
                        String.format(
                                Locale.ROOT,
                                "warm-up: %s for %.1f s%s, not reported",
                                p.kind().id(),
                                settings.evaluation().warmup().toMillis() / 1000.0,
                                variants));
            }
            TestnetRun w = warm.warmUp(p.kind(), p.impaired());
            warmUps.add(w);
            progress(pw, warmUpLine(w, settings.evaluation()));
        }
        return warmUps;
    }

    /** Lists {@link #RESEARCH_OPTIONS} of {@code testnet} in a help section of their own, after the everyday ones. */
    static void separateResearchOptions(CommandLine testnet) {
        Map<String, CommandLine.IHelpSectionRenderer> sections = testnet.getHelpSectionMap();
        sections.put(CommandLine.Model.UsageMessageSpec.SECTION_KEY_OPTION_LIST, help -> optionList(help, false));
        sections.put(
                RESEARCH_HEADING,
                help -> help.createHeading(
                        "%nResearch options (comparisons, measurement," + " attacks, averaging parameters):%n"));
        sections.put(RESEARCH_LIST, help -> optionList(help, true));
        List<String> keys = new ArrayList<>(testnet.getHelpSectionKeys());
        int after = keys.indexOf(CommandLine.Model.UsageMessageSpec.SECTION_KEY_OPTION_LIST) + 1;
        keys.addAll(after, List.of(RESEARCH_HEADING, RESEARCH_LIST));
        testnet.setHelpSectionKeys(keys);
    }

    private static String optionList(CommandLine.Help help, boolean research) {
        CommandLine.Model.CommandSpec spec = help.commandSpec();
        List<CommandLine.Model.OptionSpec> options = spec.options().stream()
                .filter(o -> !o.hidden() && RESEARCH_OPTIONS.contains(o.longestName()) == research)
                .toList();
        // One layout for both sections, so that their columns line up.
        CommandLine.Help.Layout layout =
                help.createDefaultLayout(spec.options(), spec.positionalParameters(), help.colorScheme());
        return help.optionListExcludingGroups(options, layout, null, help.parameterLabelRenderer());
    }

    /**
     * What a warm-up did, in plain words: how long it ran, and, where it ran past what was asked (by more than the
     * final scoring takes), that it waited for Java to finish compiling, and the bound on that wait.
     */
    static String warmUpLine(TestnetRun w, TestnetSettings.Evaluation evaluation) {
        double asked = evaluation.warmup().toMillis() / 1000.0;
        double ran = w.timing().seconds();
        String line = String.format(Locale.ROOT, "warm-up: %s ran %.1f s", w.label(), ran);
        if (ran > asked + evaluation.interval().toMillis() / 1000.0) {
            line += String.format(
                    Locale.ROOT,
                    " of %.1f s asked: Java was still compiling the training code, which the measured run would"
                            + " otherwise pay for (a warm-up waits at most half as long again)",
                    asked);
        }
        return line;
    }

    /**
     * Runs {@code p}, with its warm-up, in a child JVM: this command line again, with {@code --fork-child} naming
     * the run; the child's output lines are passed on as progress.
     */
    private ForkedRun.Result forked(PlannedRun p, PrintWriter pw) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("chorus-fork-");
        Path result = dir.resolve("run.bin");
        try {
            List<String> args =
                    new ArrayList<>(spec.root().commandLine().getParseResult().originalArgs());
            args.addAll(
                    List.of("--fork-child", ForkedRun.id(p.kind(), p.impaired()), "--fork-result", result.toString()));
            return ForkedRun.run(ForkedRun.command(Main.class, args), result, line -> progress(pw, line));
        } finally {
            Files.deleteIfExists(result);
            Files.deleteIfExists(dir);
        }
    }

    /** The strategies to run: {@code --compare}'s, each once, or {@code --strategy}. */
    private List<StrategyKind> strategies() {
        boolean compared = spec.commandLine().getParseResult().hasMatchedOption("--compare");
        if (!compared) {
            return List.of(StrategyKind.parse(strategy));
        }
        if (compare.isEmpty()) {
            throw new IllegalArgumentException("--compare: no strategy named; expected e.g. async,sync");
        }
        Set<StrategyKind> kinds = new LinkedHashSet<>();
        for (String s : compare) {
            if (s.isBlank()) {
                throw new IllegalArgumentException(
                        "--compare: an empty entry in \"" + String.join(",", compare) + "\"; expected e.g. async,sync");
            }
            StrategyKind k = StrategyKind.parse(s);
            if (!kinds.add(k)) {
                throw new IllegalArgumentException("--compare: " + k.id() + " is listed twice");
            }
        }
        return List.copyOf(kinds);
    }

    /**
     * Refuses a partition method the in-process testnet cannot use, before any data is loaded: {@code column:}
     * partitions need the CSV's raw columns, which this testnet has turned into a feature matrix by then.
     */
    private static void checkPartition(String method) {
        if (method.strip().toLowerCase(Locale.ROOT).startsWith("column:")) {
            throw new IllegalArgumentException("--partition " + method
                    + ": the in-process testnet does not support column partitions; 'chorus testnet up' (separate"
                    + " processes) and 'chorus partition' do");
        }
        try {
            Partitioner.parse(method);
        } catch (IllegalArgumentException | DataException e) {
            throw new IllegalArgumentException("--partition: " + e.getMessage(), e);
        }
    }

    private static void atLeast(String option, int value, int min) {
        if (value < min) {
            throw new IllegalArgumentException(
                    option + (min == 0 ? " must not be negative" : " must be at least " + min) + ", got " + value);
        }
    }

    /** A note (not an error) when a non-zero share of the nodes rounds to none of them. */
    private void noteEmptyImpairment(String option, String text, Impairment impairment) {
        if (impairment.fraction() > 0 && impairment.count(nodes) == 0) {
            PrintWriter err = spec.commandLine().getErr();
            err.printf(
                    Locale.ROOT,
                    "note: %s %s selects no node: %s of %d nodes rounds to 0%n",
                    option,
                    text,
                    plain(impairment.fraction()),
                    nodes);
            err.flush();
        }
    }

    /** {@code 0.1} as 0.1 and {@code 1.0} as 1. */
    private static String plain(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }

    private void progress(PrintWriter pw, String line) {
        if (!json) {
            pw.println(line);
            pw.flush();
        }
    }

    /** {@code 120s}, {@code 2m}, {@code 500ms}, or a bare number of seconds. */
    static Duration duration(String option, String text) {
        String s = text.strip().toLowerCase(Locale.ROOT);
        try {
            if (s.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(s.substring(0, s.length() - 2)));
            }
            if (s.endsWith("s")) {
                return Duration.ofMillis(Math.round(Double.parseDouble(s.substring(0, s.length() - 1)) * 1000));
            }
            if (s.endsWith("m")) {
                return Duration.ofMillis(Math.round(Double.parseDouble(s.substring(0, s.length() - 1)) * 60_000));
            }
            return Duration.ofMillis(Math.round(Double.parseDouble(s) * 1000));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    option + " expects a time such as 120s, 2m or 500ms, got \"" + text + "\"");
        }
    }

    /**
     * The data set as the report names it: the bundled one's name or the path, with the IDX pair when {@code
     * --idx-prefix} chose one.
     */
    private String described() {
        if (dataOptions.embedded()) {
            return BundledData.NAME;
        }
        return dataOptions.idxPrefix == null ? dataOptions.source.data.toString() : dataOptions.describe();
    }

    /**
     * The data, read by {@link DataOptions}' loaders as {@code train} reads it: IDX data keeps the directory's test
     * pair ({@code t10k}) as the common test set when it trains on {@code train}; CSV data is split by {@code
     * --test-fraction} and standardized.
     */
    private TestnetData load(TestnetSettings settings) {
        if (dataOptions.idx()) {
            IdxData idx = dataOptions.loadIdx();
            Dataset all = idx.toDataset(idx.inferredClasses());
            Dataset test = dataOptions.loadIdxTest(all.classes());
            return TestnetData.of(all, test, false, testFraction, settings);
        }
        CsvData csv = dataOptions.loadCsv();
        String identifiers = DataAdvice.OPTIONS.identifierNote(csv);
        if (identifiers != null) {
            PrintWriter err = spec.commandLine().getErr();
            err.println("note: " + identifiers);
            err.flush();
        }
        return TestnetData.of(csv.dataset(), null, true, testFraction, settings);
    }

    static Dtype parseDtype(String text) {
        return switch (text.strip().toLowerCase(Locale.ROOT)) {
            case "f32" -> Dtype.F32;
            case "f16" -> Dtype.F16;
            case "bf16" -> Dtype.BF16;
            case "int8" -> Dtype.INT8;
            default -> throw new IllegalArgumentException("--dtype must be f32, f16, bf16 or int8, got '" + text + "'");
        };
    }
}
