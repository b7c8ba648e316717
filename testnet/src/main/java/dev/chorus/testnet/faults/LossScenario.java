package dev.chorus.testnet.faults;

import dev.chorus.node.config.ConfigSchema;
import dev.chorus.node.protocol.ExchangeLimits;
import dev.chorus.testnet.localnet.NodeProcess;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * {@code loss}: every node drops {@code lossPercent} of its incoming packets at random ({@code iptables -m statistic}),
 * for {@code duration}, and node 0 is 200 ms away from every peer: its link's egress is delayed by {@code netem} where
 * the kernel has it, else the node delays its own reads ({@code network.added_delay_ms}, among its start's overrides
 * before the loss, with a restart). Invariants: every
 * node trains on (model version advances) and completes exchanges, never goes longer than the exchange timeout without
 * completing one (a node whose exchanges hang would), and no peer's measured exchange time (a weighted mean of its
 * completed and timed-out exchanges) exceeds the timeout; afterwards the mean accuracy is back within {@code accuracyDrop}.
 */
final class LossScenario {

    private static final int DELAY_MS = 200;

    /** How node 0 got its delay. */
    private enum Delay {
        NONE,
        /** {@code tc netem} on its link's egress. */
        NETEM,
        /** Its own reads ({@code network.added_delay_ms}), restarted with it. */
        NODE
    }

    private final FaultNodes nodes;
    private final FaultSettings settings;
    private final PrintWriter progress;
    private final FaultReport report = new FaultReport(
            "loss",
            List.of(
                    "node",
                    "v before",
                    "v after",
                    "exchanges ok",
                    "failed",
                    "abandoned",
                    "slowest s",
                    "longest gap s"));

    LossScenario(FaultNodes nodes, FaultSettings settings, PrintWriter progress) {
        this.nodes = nodes;
        this.settings = settings;
        this.progress = progress;
    }

    FaultReport run() throws InterruptedException {
        Duration timeout = ExchangeLimits.defaults().exchangeTimeout();
        Delay delayed = Delay.NONE;
        try {
            List<NodeStatus> warm = Warmup.await(nodes, settings.settle(), progress, false);
            delayed = delay();
            if (delayed == Delay.NODE) {
                warm = Warmup.await(nodes, settings.settle(), progress, false);
            }
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
            progress.printf(
                    Locale.ROOT,
                    "loss: %.1f%% of incoming packets dropped on every node for %d s%n",
                    settings.lossPercent(),
                    settings.duration().toSeconds());
            progress.flush();
            Watched watched = watch(warm);
            List<NodeStatus> after = nodes.awaitAll(s -> true, settings.settle(), "status");
            for (int i = 0; i < nodes.size(); i++) {
                judge(i, warm.get(i), after.get(i), watched, timeout);
            }
            report.figure("exchange timeout s", (double) timeout.toSeconds());
            clear(delayed);
            delayed = Delay.NONE;
            Warmup.judgeAccuracy(nodes, settings, progress, report, before);
            report.passBecause(String.format(
                    Locale.ROOT,
                    "with %.1f%% loss every node trained and kept completing exchanges (longest gap %.1f s, timeout"
                            + " %d s), mean accuracy %.3f (before: %.3f)",
                    settings.lossPercent(),
                    java.util.Arrays.stream(watched.longestGap()).max().orElse(0),
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

    /**
     * Per node, the slowest exchange time any peer showed, and the longest time without a newly completed exchange
     * (from the start of the loss to the next completion, between completions, from the last one to the end).
     */
    private record Watched(double[] slowest, double[] longestGap) {}

    /** Polls every node once a second while the loss lasts. */
    private Watched watch(List<NodeStatus> warm) throws InterruptedException {
        int n = nodes.size();
        double[] slowest = new double[n];
        double[] gap = new double[n];
        long[] completed = new long[n];
        long[] since = new long[n];
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            completed[i] = warm.get(i).exchanges();
            since[i] = start;
        }
        long end = start + settings.duration().toNanos();
        while (System.nanoTime() < end) {
            Thread.sleep(Math.min(1000, Math.max(1, (end - System.nanoTime()) / 1_000_000)));
            long now = System.nanoTime();
            for (int i = 0; i < n; i++) {
                Optional<NodeStatus> s = nodes.status(i);
                if (s.isPresent()) {
                    slowest[i] = Math.max(slowest[i], s.get().slowestExchangeSeconds());
                    if (s.get().exchanges() > completed[i]) {
                        // Seen at this poll: the gap it closes counts at the polls' one-second resolution.
                        gap[i] = Math.max(gap[i], (now - since[i]) / 1e9);
                        completed[i] = s.get().exchanges();
                        since[i] = now;
                    }
                }
                if (System.nanoTime() >= end) {
                    gap[i] = Math.max(gap[i], (now - since[i]) / 1e9);
                }
            }
        }
        return new Watched(slowest, gap);
    }

    private void judge(int i, NodeStatus before, NodeStatus after, Watched watched, Duration timeout) {
        String name = nodes.node(i).name();
        double slowest = watched.slowest()[i];
        double gap = watched.longestGap()[i];
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
        if (gap > timeout.toSeconds()) {
            report.fail(String.format(
                    Locale.ROOT,
                    "%s completed no exchange for %.1f s, longer than the %d-s exchange timeout: its"
                            + " exchanges hang",
                    name,
                    gap,
                    timeout.toSeconds()));
        }
        report.row(
                name,
                before.modelVersion(),
                after.modelVersion(),
                "+" + (after.exchanges() - before.exchanges()),
                "+" + (after.exchangeFailures() - before.exchangeFailures()),
                "+" + (after.abandoned() - before.abandoned()),
                slowest,
                gap);
    }

    /**
     * 200 ms between node 0 and its peers: on its egress with netem, else in the node itself (its overrides get {@code
     * network.added_delay_ms} and it restarts); when both fail, the report says the delay was left out.
     */
    private Delay delay() throws InterruptedException {
        String name = nodes.node(0).name();
        try {
            nodes.runIn(
                    0, List.of("tc", "qdisc", "add", "dev", nodeLink(0), "root", "netem", "delay", DELAY_MS + "ms"));
            report.note(name + ": " + DELAY_MS + " ms delay on its egress (netem)");
            return Delay.NETEM;
        } catch (RuntimeException e) {
            String noNetem = "this kernel has no netem (" + e.getMessage() + ")";
            progress.println("loss: " + noNetem + "; restarting " + name + " with " + ConfigSchema.ADDED_DELAY_MS + ": "
                    + DELAY_MS);
            progress.flush();
            try {
                setAddedDelay(DELAY_MS);
            } catch (IOException x) {
                report.note("no delay on " + name + ": " + noNetem + ", and its overrides could not be written: "
                        + x.getMessage());
                return Delay.NONE;
            }
            nodes.stop(0);
            try {
                nodes.restart(0, settings.settle());
            } catch (IOException | FaultException x) {
                clear(Delay.NODE);
                throw new FaultException(name + " did not restart with its delay: " + x.getMessage());
            }
            report.note(name + ": " + DELAY_MS + " ms added to every read by the node itself ("
                    + ConfigSchema.ADDED_DELAY_MS + ", restarted with it before the loss), as " + noNetem);
            return Delay.NODE;
        }
    }

    /**
     * Sets {@code network.added_delay_ms} to {@code millis} among node 0's overrides (0: takes it out), which its next
     * start passes as {@code --set}; its {@code node.yaml} is left as it is.
     */
    private void setAddedDelay(int millis) throws IOException {
        Path home = nodes.node(0).dir();
        String key = ConfigSchema.ADDED_DELAY_MS + "=";
        List<String> overrides = new ArrayList<>(NodeProcess.readOverrides(home));
        overrides.removeIf(o -> o.startsWith(key));
        if (millis > 0) {
            overrides.add(key + millis);
        }
        NodeProcess.writeOverrides(home, overrides);
    }

    /** The node's veth as {@code LocalnetNetwork} names it: {@code cSnI} in namespace {@code chorusS-I}. */
    private String nodeLink(int i) {
        String ns = nodes.namespace(i);
        String subnet = ns.substring("chorus".length(), ns.indexOf('-'));
        return "c" + subnet + "n" + i;
    }

    private void clear(Delay delayed) {
        for (int i = 0; i < nodes.size(); i++) {
            try {
                nodes.runIn(i, List.of("iptables", "-F", "INPUT"));
            } catch (RuntimeException e) {
                progress.println("clear: " + nodes.node(i).name() + ": " + e.getMessage());
            }
        }
        if (delayed == Delay.NETEM) {
            try {
                nodes.runIn(0, List.of("tc", "qdisc", "del", "dev", nodeLink(0), "root"));
            } catch (RuntimeException e) {
                progress.println("clear: " + nodes.node(0).name() + ": " + e.getMessage());
            }
        }
        if (delayed == Delay.NODE) {
            // The running node keeps its delay until the scenario stops it; its later starts run without it.
            try {
                setAddedDelay(0);
            } catch (IOException e) {
                progress.println("clear: " + nodes.node(0).name() + ": " + e.getMessage());
            }
        }
        progress.flush();
    }
}
