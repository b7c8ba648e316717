package dev.chorus.testnet.faults;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/** What every scenario does before and after its fault: wait for trained, connected nodes; judge the accuracy. */
final class Warmup {

    private Warmup() {}

    /**
     * Waits until every node is connected to every other, has been evaluated and, with {@code checkpointed}, has a
     * checkpoint on disk that verifies and is past version 0.
     */
    static List<NodeStatus> await(FaultNodes nodes, Duration timeout, PrintWriter progress, boolean checkpointed)
            throws InterruptedException {
        int others = nodes.size() - 1;
        long start = System.nanoTime();
        List<NodeStatus> warm = nodes.awaitAll(
                s -> s.peerCount() >= others && Double.isFinite(s.accuracy()) && s.modelVersion() > 0,
                timeout,
                "warm-up (every node connected to the " + others + " others and evaluated)");
        if (checkpointed) {
            long deadline = start + timeout.toNanos();
            for (int i = 0; i < nodes.size(); i++) {
                while (DiskChecks.checkpoints(nodes.config(i).checkpointDir()).newest() <= 0) {
                    if (System.nanoTime() > deadline) {
                        throw new FaultException("warm-up: " + nodes.node(i).name() + " wrote no checkpoint within "
                                + timeout.toSeconds() + " s (checkpoint.every_steps, checkpoint.every_seconds)");
                    }
                    Thread.sleep(250);
                }
            }
            warm = nodes.awaitAll(s -> true, timeout, "status");
        }
        progress.printf(
                Locale.ROOT,
                "warm after %.1f s: %s%n",
                (System.nanoTime() - start) / 1e9,
                warm.stream().map(FaultNodes::brief).toList());
        progress.flush();
        return warm;
    }

    static double meanAccuracy(List<NodeStatus> statuses) {
        return statuses.stream().mapToDouble(NodeStatus::accuracy).average().orElse(Double.NaN);
    }

    /**
     * Waits up to {@code settle} for the mean accuracy over the nodes to come within {@code accuracyDrop} of {@code
     * before}; records the figure and fails the report when it does not.
     */
    static void judgeAccuracy(
            FaultNodes nodes, FaultSettings settings, PrintWriter progress, FaultReport report, double before)
            throws InterruptedException {
        double floor = before - settings.accuracyDrop();
        long start = System.nanoTime();
        long deadline = start + settings.settle().toNanos();
        double mean;
        while (true) {
            List<NodeStatus> now = nodes.awaitAll(s -> Double.isFinite(s.accuracy()), settings.settle(), "evaluation");
            mean = meanAccuracy(now);
            if (mean >= floor || System.nanoTime() > deadline) {
                break;
            }
            Thread.sleep(1000);
        }
        report.figure("mean accuracy after", mean);
        report.figure("accuracy floor", floor);
        report.figure("seconds to the floor", mean >= floor ? (System.nanoTime() - start) / 1e9 : Double.NaN);
        progress.printf(Locale.ROOT, "mean accuracy %.4f (floor %.4f)%n", mean, floor);
        progress.flush();
        if (mean < floor) {
            report.fail(String.format(
                    Locale.ROOT,
                    "mean accuracy %.3f stayed below %.3f (%.3f before, less --accuracy-drop %.3f) for %d s",
                    mean,
                    floor,
                    before,
                    settings.accuracyDrop(),
                    settings.settle().toSeconds()));
        }
    }
}
