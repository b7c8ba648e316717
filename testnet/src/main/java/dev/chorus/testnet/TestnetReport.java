package dev.chorus.testnet;

import dev.chorus.learning.json.JsonWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Locale;

/**
 * Writes a testnet's results: {@code samples.csv} (one row per evaluation of one node), {@code accuracy.png} (the
 * mean and the worst node's accuracy against time, per run) and the JSON summary, each to a temporary file that is
 * then renamed.
 */
public final class TestnetReport {

    /**
     * The columns of {@code samples.csv}. Columns are only ever added at the end, so that a reader that takes the
     * first seven by position keeps working; {@code auc} is empty where it is undefined (a multiclass task, or a
     * test set of one class), as a CSV reader takes an empty numeric field to be missing.
     */
    static final String CSV_HEADER = "strategy,time_s,node,accuracy,loss,version,bytes_sent,auc,balanced_accuracy";

    private TestnetReport() {}

    static String csv(List<TestnetRun> runs) {
        StringBuilder sb = new StringBuilder(CSV_HEADER).append('\n');
        for (TestnetRun r : runs) {
            for (TestnetRun.Sample s : r.scores().samples()) {
                sb.append(String.format(
                        Locale.ROOT,
                        "%s,%.3f,%d,%.6f,%.6f,%d,%d,%s,%s%n",
                        s.run(),
                        s.time(),
                        s.node(),
                        s.accuracy(),
                        s.loss(),
                        s.version(),
                        s.bytesSent(),
                        csvNumber(s.score().auc()),
                        csvNumber(s.score().balancedAccuracy())));
            }
        }
        return sb.toString();
    }

    /** {@code v} with six decimals, or nothing when it is NaN. */
    private static String csvNumber(double v) {
        return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.6f", v);
    }

    /** @param fragments the fragmented strategy's fragments per round, as the runs used them */
    public static String json(
            TestnetSettings settings, String data, int fragments, List<TestnetRun> warmUps, List<TestnetRun> runs) {
        StringBuilder sb = new StringBuilder();
        JsonWriter w = JsonWriter.compact(sb);
        w.beginObject();
        settings(w, settings, data, fragments);
        jvm(w);
        // The warm-up runs: how long each went on and how long the compilers worked in it (not scored here).
        w.name("warmUps").beginArray();
        for (TestnetRun r : warmUps) {
            w.beginObject();
            w.member("run", r.label());
            w.member("seconds", r.timing().seconds());
            number(w, "jitCompileSeconds", r.timing().jitSeconds());
            w.endObject();
        }
        w.endArray();
        w.name("runs").beginArray();
        for (TestnetRun r : runs) {
            run(w, r, settings.evaluation().targetAccuracy());
        }
        w.endArray();
        w.endObject();
        w.finish();
        return sb.toString();
    }

    /** What the testnet was: its settings, as the JSON summary names them. */
    private static void settings(JsonWriter w, TestnetSettings settings, String data, int fragments) {
        w.member("seed", settings.seed());
        w.member("nodes", settings.nodes());
        w.member("data", data);
        w.member("partition", settings.training().partition());
        w.member("model", settings.training().model());
        w.member("optimizer", settings.training().optimizer());
        w.member("lrSchedule", settings.training().lrSchedule().spec());
        w.member("dtype", settings.averaging().dtype().name().toLowerCase(Locale.ROOT));
        w.member("exchangeEvery", settings.averaging().exchangeEvery());
        w.member("maxInFlight", settings.averaging().maxInFlight());
        w.member("stragglerCompensation", settings.averaging().training().maxStepScale());
        w.member("durationSeconds", settings.evaluation().duration().toMillis() / 1000.0);
        w.member("warmupSeconds", settings.evaluation().warmup().toMillis() / 1000.0);
        w.member("targetAccuracy", settings.evaluation().targetAccuracy());
        w.member("evalRows", settings.evaluation().rows());
        w.member(
                "stragglers",
                String.format(
                        Locale.ROOT,
                        "%s:%s",
                        settings.impairments().stragglers().fraction(),
                        settings.impairments().stragglers().value()));
        w.member(
                "slowLinks",
                String.format(
                        Locale.ROOT,
                        "%s:%s",
                        settings.impairments().slowLinks().fraction(),
                        settings.impairments().slowLinks().value()));
        TestnetSettings.Byzantine byzantine = settings.impairments().byzantine();
        if (byzantine.count(settings.nodes()) > 0) {
            w.member(
                    "byzantine", byzantine.fraction() + ":" + byzantine.attack().text());
        }
        w.member("linkMbit", settings.topology().linkMbit());
        w.member("maxStepsPerSecond", settings.training().maxStepsPerSecond());
        w.member("fragments", fragments);
        w.member("fanout", settings.averaging().fanout());
        w.member("fragmentBalance", settings.averaging().balanceFragments());
        w.member("screening", settings.averaging().screening().configName());
        TestnetSettings.Secure secure = settings.secure();
        w.name("secure").beginObject();
        w.member("groupSize", secure.groupSize());
        w.member("dropouts", secure.dropouts());
        w.member("phaseTimeoutSeconds", secure.phaseTimeout().toMillis() / 1000.0);
        w.member("offerWindowSeconds", secure.offerWindow().toMillis() / 1000.0);
        w.member("slowLinksRelay", secure.slowLinksRelay().word());
        w.endObject();
        if (settings.outsiders() > 0) {
            w.member("outsiders", settings.outsiders());
        }
    }

    /** The JVM's heap and threads at their peak, and the CPUs it had. */
    private static void jvm(JsonWriter w) {
        w.name("jvm").beginObject();
        w.member("maxHeapMiB", Math.round(JvmFootprint.maxHeapMiB()));
        w.member("peakLiveHeapMiB", Math.round(JvmFootprint.peakLiveHeapMiB()));
        w.member("peakThreads", JvmFootprint.peakThreads());
        w.member("cpus", Runtime.getRuntime().availableProcessors());
        w.endObject();
    }

    /** One measured run's object. */
    private static void run(JsonWriter w, TestnetRun r, double targetAccuracy) {
        w.beginObject();
        w.member("label", r.label());
        w.member("strategy", r.strategy().id());
        w.member("nodes", r.nodes());
        ints(w, "stragglerNodes", r.impairments().stragglers());
        ints(w, "slowLinkNodes", r.impairments().slowLinks());
        longs(w, "linkBytesPerSecond", r.impairments().linkBytesPerSecond());
        ints(w, "attackerNodes", r.impairments().attackers());
        w.member("seconds", r.timing().seconds());
        number(w, "jitCompileSeconds", r.timing().jitSeconds());
        number(w, "jitSettleSeconds", r.timing().settleSeconds());
        timeToTarget(w, r, targetAccuracy);
        finalScores(w, r);
        w.member("finalLossMedian", TestnetRun.median(r.scores().finalLoss()));
        w.name("bytesSentPerNode").beginObject();
        w.member("median", TestnetRun.median(r.exchanges().bytesSent()));
        w.member("max", java.util.Arrays.stream(r.exchanges().bytesSent()).max().orElse(0));
        w.endObject();
        longs(w, "bytesSent", r.exchanges().bytesSent());
        longs(w, "bytesReceived", r.exchanges().bytesReceived());
        longs(w, "rounds", r.exchanges().rounds());
        longs(w, "updatesAccepted", r.exchanges().updatesAccepted());
        longs(w, "updatesClipped", r.exchanges().updatesClipped());
        longs(w, "updatesDropped", r.exchanges().updatesDropped());
        tenths(w, "stepsPerSecond", r.pace().stepsPerSecond());
        tenths(w, "waitSeconds", r.pace().waitSeconds());
        tenths(w, "stepScale", r.pace().stepScale());
        longs(w, "stalenessHistogram", r.exchanges().staleness());
        secureAggregation(w, r.exchanges().secure());
        outsiders(w, r.outsiders());
        w.endObject();
    }

    /**
     * What the group rounds of a {@code secure} run did (nothing for the other strategies): rounds completed,
     * abandoned and cancelled, dropouts injected and recovered, bytes per member and per relay against plain averaging, and the
     * relays' view check.
     */
    private static void secureAggregation(JsonWriter w, TestnetRun.SecureRounds s) {
        if (s.memberRounds() == 0 && s.completed() + s.abandoned() + s.cancelled() == 0) {
            return;
        }
        w.name("secureAggregation").beginObject();
        w.member("roundsCompleted", s.completed());
        w.member("roundsAbandoned", s.abandoned());
        w.member("roundsCancelled", s.cancelled());
        w.member("dropoutsInjected", s.dropoutsInjected());
        w.member("dropoutsRecovered", s.dropoutsRecovered());
        w.member("memberRounds", s.memberRounds());
        w.member("meanRoundMillis", Math.round(s.meanRoundMillis()));
        w.member("roundsRelayedOnSlowLinks", s.relayedOnSlowLinks());
        w.member("relayDeclines", s.relayDeclines());
        w.member("bytesPerMemberVsPlain", Math.round(s.bytesPerMemberVsPlain() * 1000) / 1000.0);
        w.member("bytesPerRelayVsPlain", Math.round(s.bytesPerRelayVsPlain() * 1000) / 1000.0);
        longs(w, "sumsPerNode", s.sumsPerNode());
        longs(w, "offersUnansweredPerNode", s.unansweredPerNode());
        w.name("relayView").beginObject();
        w.member("maskedInputsChecked", s.maskedInputsChecked());
        w.member("maskedInputsNonUniform", s.maskedInputsNonUniform());
        w.member("check", "chi-square of the top 4 bits of each masked word vs uniform, p < 0.001 fails");
        w.endObject();
        w.endObject();
    }

    /**
     * What the outsiders tried and got, in a run they attacked (nothing otherwise): {@code breach} is true when they
     * got a model byte, an update accepted or a message delivered.
     */
    private static void outsiders(JsonWriter w, TestnetRun.Outsiders o) {
        if (o.hosts() == 0) {
            return;
        }
        w.name("outsiders").beginObject();
        w.member("hosts", o.hosts());
        w.member("connects", o.connects());
        w.member("pulls", o.pulls());
        w.member("pushes", o.pushes());
        w.member("publishes", o.publishes());
        w.member("modelBytesPulled", o.modelBytesPulled());
        w.member("updatesAccepted", o.updatesAccepted());
        w.member("messagesDelivered", o.messagesDelivered());
        w.member("breach", o.breached());
        w.endObject();
    }

    /**
     * The nodes' final scores over the nodes. {@code finalAccuracy} keeps {@code min} (the same as {@code worst}) for
     * the readers that came before {@code worst}; a summary that is undefined (the AUC of a multiclass task) is
     * written as nulls. The summaries leave the attackers out ({@link TestnetRun#honest}).
     */
    private static void finalScores(JsonWriter w, TestnetRun r) {
        TestnetRun.Scores scores = r.scores();
        TestnetRun.Spread accuracy = TestnetRun.Spread.of(r.honest(scores.finalAccuracy()));
        w.name("finalAccuracy").beginObject();
        w.member("median", accuracy.median());
        w.member("min", accuracy.worst());
        w.member("max", accuracy.max());
        w.member("mean", accuracy.mean());
        w.member("worst", accuracy.worst());
        w.endObject();
        spread(w, "finalAuc", TestnetRun.Spread.of(r.honest(scores.finalAuc())));
        spread(w, "finalBalancedAccuracy", TestnetRun.Spread.of(r.honest(scores.finalBalancedAccuracy())));
    }

    private static void spread(JsonWriter w, String name, TestnetRun.Spread spread) {
        w.name(name).beginObject();
        w.member("mean", spread.mean());
        w.member("median", spread.median());
        w.member("worst", spread.worst());
        w.member("max", spread.max());
        w.endObject();
    }

    /** When the nodes reached {@code targetAccuracy}: summaries over nodes, then each node's time (null: never). */
    private static void timeToTarget(JsonWriter w, TestnetRun r, double targetAccuracy) {
        w.name("timeToTarget").beginObject();
        w.member("reached", r.reached());
        number(w, "median", r.medianTimeToTarget());
        number(w, "max", r.maxTimeToTarget());
        number(w, "meanOfNodes", r.meanTimeToTarget(targetAccuracy));
        number(w, "meanOfNodesHeld", r.heldTimeToTarget(targetAccuracy));
        number(w, "worstNode", r.worstTimeToTarget(targetAccuracy));
        number(w, "worstNodeHeld", r.worstHeldTimeToTarget(targetAccuracy));
        w.name("perNode").beginArray();
        for (double t : r.scores().timeToTarget()) {
            if (Double.isNaN(t)) {
                w.nullValue();
            } else {
                w.value(t);
            }
        }
        w.endArray();
        w.endObject();
    }

    private static void number(JsonWriter w, String name, double v) {
        w.name(name);
        if (Double.isNaN(v)) {
            w.nullValue();
        } else {
            w.value(v);
        }
    }

    private static void ints(JsonWriter w, String name, int[] a) {
        w.name(name).beginArray();
        for (int v : a) {
            w.value(v);
        }
        w.endArray();
    }

    /** Writes {@code a} rounded to tenths. */
    private static void tenths(JsonWriter w, String name, double[] a) {
        w.name(name).beginArray();
        for (double v : a) {
            w.value(Math.round(v * 10) / 10.0);
        }
        w.endArray();
    }

    private static void longs(JsonWriter w, String name, long[] a) {
        w.name(name).beginArray();
        for (long v : a) {
            w.value(v);
        }
        w.endArray();
    }

    /** Writes the three files into {@code dir}. */
    public static void write(Path dir, TestnetSettings settings, String data, List<TestnetRun> runs, String json)
            throws IOException {
        Files.createDirectories(dir);
        atomically(dir, "samples.csv", tmp -> Files.writeString(tmp, csv(runs), StandardCharsets.UTF_8));
        String title = String.format(
                Locale.ROOT,
                "%d nodes, %s, %s, seed %d",
                settings.nodes(),
                settings.training().model(),
                settings.training().partition(),
                settings.seed());
        atomically(
                dir,
                "accuracy.png",
                tmp -> AccuracyPlot.write(
                        AccuracyPlot.render(runs, settings.evaluation().targetAccuracy(), title), tmp));
        atomically(dir, "summary.json", tmp -> Files.writeString(tmp, json + "\n", StandardCharsets.UTF_8));
    }

    private interface Writer {
        void write(Path tmp) throws IOException;
    }

    private static void atomically(Path dir, String name, Writer writer) throws IOException {
        Path tmp = Files.createTempFile(dir, "." + name, ".tmp");
        try {
            writer.write(tmp);
            Files.move(tmp, dir.resolve(name), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }
}
