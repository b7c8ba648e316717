package dev.chorus.testnet;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The table that {@code chorus testnet} prints, one row per measured run: the final accuracy's mean, median and
 * worst node, the final AUC's mean and worst node (binary tasks only), the mean balanced accuracy, the times to the
 * target of the mean over nodes and of the worst node (first and held), the nodes that reached it and the median
 * bytes sent per node. It fits in 115 columns; the JSON summary has every figure with more digits.
 */
public final class SummaryTable {

    private static final String LABEL = "%-16s";
    private static final String SCORES = " %8s %6s %6s";
    private static final String AUC = " %8s %6s";
    private static final String REST = " %8s %7s %7s %7s %7s %7s %10s";

    private SummaryTable() {}

    /** The table's lines: two header lines, then one per run. */
    public static List<String> lines(List<TestnetRun> runs, double targetAccuracy) {
        // A multiclass task has no AUC in any run (they share the test set): its columns would all be "-".
        boolean auc = runs.stream()
                .anyMatch(r -> !Double.isNaN(
                        TestnetRun.Spread.of(r.scores().finalAuc()).mean()));
        String format = LABEL + SCORES + (auc ? AUC : "") + REST;
        String to = String.format(Locale.ROOT, "to %.2f", targetAccuracy);
        StringBuilder groups = new StringBuilder(" ".repeat(16));
        groups.append(' ').append(span("accuracy", 22));
        if (auc) {
            groups.append(' ').append(span("AUC", 15));
        }
        groups.append(' ').append(span("bal.acc", 8));
        groups.append(' ').append(span("mean " + to, 15));
        groups.append(' ').append(span("worst " + to, 15));
        List<String> lines = new ArrayList<>();
        lines.add(groups.toString().stripTrailing());
        lines.add(row(
                format,
                auc,
                "run",
                "mean",
                "median",
                "worst",
                "mean",
                "worst",
                "mean",
                "first",
                "held",
                "first",
                "held",
                "reached",
                "bytes/node"));
        for (TestnetRun r : runs) {
            lines.add(runRow(format, auc, r, targetAccuracy));
        }
        return lines;
    }

    /**
     * One line for each run that outsiders attacked ({@link TestnetSettings#outsiders()}): what they tried, and what
     * they got, which is nothing unless the membership was breached.
     */
    public static List<String> outsiderLines(List<TestnetRun> runs) {
        List<String> lines = new ArrayList<>();
        for (TestnetRun r : runs) {
            TestnetRun.Outsiders o = r.outsiders();
            if (o.hosts() > 0) {
                lines.add(String.format(
                        Locale.ROOT,
                        "outsiders, %s: %d made %d connects, %d pulls, %d pushes, %d publishes: %s, %s, %s",
                        r.label(),
                        o.hosts(),
                        o.connects(),
                        o.pulls(),
                        o.pushes(),
                        o.publishes(),
                        got(o),
                        plural(o.updatesAccepted(), "update accepted", "updates accepted"),
                        plural(o.messagesDelivered(), "message delivered", "messages delivered")));
            }
        }
        return lines;
    }

    /** One line for each run whose outsiders got a model byte, an update accepted or a message delivered. */
    public static List<String> breaches(List<TestnetRun> runs) {
        List<String> lines = new ArrayList<>();
        for (TestnetRun r : runs) {
            TestnetRun.Outsiders o = r.outsiders();
            if (o.breached()) {
                lines.add(String.format(
                        Locale.ROOT,
                        "membership breach in run %s: outsiders without a certificate got %s, %s, %s",
                        r.label(),
                        got(o),
                        plural(o.updatesAccepted(), "update accepted", "updates accepted"),
                        plural(o.messagesDelivered(), "message delivered", "messages delivered")));
            }
        }
        return lines;
    }

    private static String got(TestnetRun.Outsiders o) {
        return plural(o.modelBytesPulled(), "model byte", "model bytes");
    }

    private static String plural(long n, String one, String many) {
        return n + " " + (n == 1 ? one : many);
    }

    /**
     * {@code title} centred in {@code width} columns between dashes, over the columns it names; right-aligned without
     * dashes where they leave no room.
     */
    private static String span(String title, int width) {
        int dashes = width - title.length() - 2;
        if (dashes < 2) {
            return String.format(Locale.ROOT, "%" + width + "s", title);
        }
        return "-".repeat(dashes / 2) + " " + title + " " + "-".repeat(dashes - dashes / 2);
    }

    private static String runRow(String format, boolean auc, TestnetRun r, double target) {
        // Over the honest nodes: a defence is judged by the nodes it protects.
        TestnetRun.Spread accuracy = TestnetRun.Spread.of(r.honest(r.scores().finalAccuracy()));
        TestnetRun.Spread aucs = TestnetRun.Spread.of(r.honest(r.scores().finalAuc()));
        return row(
                format,
                auc,
                r.label(),
                score(accuracy.mean()),
                score(accuracy.median()),
                score(accuracy.worst()),
                score(aucs.mean()),
                score(aucs.worst()),
                score(TestnetRun.Spread.of(r.honest(r.scores().finalBalancedAccuracy()))
                        .mean()),
                seconds(r.meanTimeToTarget(target)),
                seconds(r.heldTimeToTarget(target)),
                seconds(r.worstTimeToTarget(target)),
                seconds(r.worstHeldTimeToTarget(target)),
                r.reached() + "/" + r.nodes(),
                bytes(TestnetRun.median(r.exchanges().bytesSent())));
    }

    /** The cells in {@code format}'s columns; the AUC's two cells are left out when {@code auc} is false. */
    private static String row(String format, boolean auc, String... cells) {
        List<Object> shown = new ArrayList<>(List.of((Object[]) cells));
        if (!auc) {
            shown.remove(5);
            shown.remove(4);
        }
        return String.format(Locale.ROOT, format, shown.toArray()).stripTrailing();
    }

    private static String score(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.4f", v);
    }

    private static String seconds(double s) {
        return Double.isNaN(s) ? "-" : String.format(Locale.ROOT, "%.1fs", s);
    }

    /** Bytes in decimal units, to three significant digits or so. */
    private static String bytes(double b) {
        if (b < 10_000) {
            return String.format(Locale.ROOT, "%.0f B", b);
        }
        if (b < 10_000_000) {
            return String.format(Locale.ROOT, "%.1f kB", b / 1e3);
        }
        return String.format(Locale.ROOT, "%.1f MB", b / 1e6);
    }
}
