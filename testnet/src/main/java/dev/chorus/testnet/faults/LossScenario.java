package dev.chorus.testnet.faults;

import dev.chorus.node.protocol.ExchangeLimits;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * {@code loss}: every node drops {@code lossPercent} of its incoming packets at random ({@code iptables -m statistic}),
 * and node 0's link gets 100 ms of delay where the kernel has {@code netem}, for {@code duration}. Invariants: every
 * node trains on (model version advances) and completes exchanges, and no peer shows an exchange longer than the
 * exchange timeout (an exchange hung past it would); afterwards the mean accuracy is back within {@code accuracyDrop}.
 */
final class LossScenario {

    private static final int DELAY_MS = 100;

    private final FaultNodes nodes;
    private final FaultSettings settings;
    private final PrintWriter progress;
    private final FaultReport report = new FaultReport(
            "loss", List.of("node", "v before", "v after", "exchanges ok", "failed", "abandoned", "slowest s"));

    LossScenario(FaultNodes nodes, FaultSettings settings, PrintWriter progress) {
        this.nodes = nodes;
        this.settings = settings;
        this.progress = progress;
    }

    FaultReport run() throws InterruptedException {
        Duration timeout = ExchangeLimits.defaults().exchangeTimeout();
        boolean delayed = false;
        try {
            List<NodeStatus> warm = Warmup.await(nodes, settings.settle(), progress, false);
            double before = Warmup.meanAccuracy(warm);
            report.figure("mean accuracy before", before);
            double probability = settings.lossPercent() / 100;
            for (int i = 0; i < nodes.size(); i++) {
                nodes.runIn(
                        i,
                        List.of(
                                "iptables",
                                "-A",
                                "INPUT",
                                "-m",
                                "statistic",
                                "--mode",
                                "random",
                                "--probability",
                                String.format(Locale.ROOT, "%.4f", probability),
                                "-j",
                                "DROP"));
            }
            delayed = delay();
            progress.printf(
                    Locale.ROOT,
                    "loss: %.1f%% of incoming packets dropped on every node for %d s%n",
                    settings.lossPercent(),
                    settings.duration().toSeconds());
            progress.flush();
            double[] slowest = new double[nodes.size()];
            long end = System.nanoTime() + settings.duration().toNanos();
            while (System.nanoTime() < end) {
                Thread.sleep(Math.min(1000, Math.max(1, (end - System.nanoTime()) / 1_000_000)));
                for (int i = 0; i < nodes.size(); i++) {
                    Optional<NodeStatus> s = nodes.status(i);
                    if (s.isPresent()) {
                        slowest[i] = Math.max(slowest[i], s.get().slowestExchangeSeconds());
                    }
                }
            }
            List<NodeStatus> after = nodes.awaitAll(s -> true, settings.settle(), "status");
            for (int i = 0; i < nodes.size(); i++) {
                judge(i, warm.get(i), after.get(i), slowest[i], timeout);
            }
            report.figure("exchange timeout s", (double) timeout.toSeconds());
            clear(delayed);
            delayed = false;
            Warmup.judgeAccuracy(nodes, settings, progress, report, before);
            report.passBecause(String.format(
                    Locale.ROOT,
                    "with %.1f%% loss every node trained and exchanged, no exchange past %d s, mean accuracy %.3f"
                            + " (before: %.3f)",
                    settings.lossPercent(),
                    timeout.toSeconds(),
                    (Double) report.figures().get("mean accuracy after"),
                    before));
        } catch (FaultException e) {
            report.fail(e.getMessage());
        } finally {
            clear(delayed);
        }
        return report;
    }

    private void judge(int i, NodeStatus before, NodeStatus after, double slowest, Duration timeout) {
        String name = nodes.node(i).name();
        if (after.modelVersion() <= before.modelVersion()) {
            report.fail(name + " did not train under loss (model version " + before.modelVersion() + " then "
                    + after.modelVersion() + ")");
        }
        if (after.exchanges() <= before.exchanges()) {
            report.fail(name + " completed no exchange under loss");
        }
        if (slowest > timeout.toSeconds()) {
            report.fail(String.format(
                    Locale.ROOT,
                    "%s shows an exchange of %.1f s, past the %d-s timeout",
                    name,
                    slowest,
                    timeout.toSeconds()));
        }
        report.row(
                name,
                before.modelVersion(),
                after.modelVersion(),
                "+" + (after.exchanges() - before.exchanges()),
                "+" + (after.exchangeFailures() - before.exchangeFailures()),
                "+" + (after.abandoned() - before.abandoned()),
                slowest);
    }

    /** 100 ms on node 0's egress with netem; without it the report says the delay was left out. */
    private boolean delay() {
        try {
            nodes.runIn(
                    0, List.of("tc", "qdisc", "add", "dev", nodeLink(0), "root", "netem", "delay", DELAY_MS + "ms"));
            report.note(nodes.node(0).name() + ": " + DELAY_MS + " ms delay on its egress (netem)");
            return true;
        } catch (RuntimeException e) {
            report.note("no delay on " + nodes.node(0).name() + ": this kernel has no netem (" + e.getMessage() + ")");
            return false;
        }
    }

    /** The node's veth as {@code LocalnetNetwork} names it: {@code cSnI} in namespace {@code chorusS-I}. */
    private String nodeLink(int i) {
        String ns = nodes.namespace(i);
        String subnet = ns.substring("chorus".length(), ns.indexOf('-'));
        return "c" + subnet + "n" + i;
    }

    private void clear(boolean delayed) {
        for (int i = 0; i < nodes.size(); i++) {
            try {
                nodes.runIn(i, List.of("iptables", "-F", "INPUT"));
            } catch (RuntimeException e) {
                progress.println("clear: " + nodes.node(i).name() + ": " + e.getMessage());
            }
        }
        if (delayed) {
            try {
                nodes.runIn(0, List.of("tc", "qdisc", "del", "dev", nodeLink(0), "root"));
            } catch (RuntimeException e) {
                progress.println("clear: " + nodes.node(0).name() + ": " + e.getMessage());
            }
        }
        progress.flush();
    }
}
