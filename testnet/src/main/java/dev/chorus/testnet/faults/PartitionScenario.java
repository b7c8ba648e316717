package dev.chorus.testnet.faults;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * {@code partition}: the nodes are split into two halves (first half: nodes 0 to n/2-1) by {@code iptables} rules in
 * every node's namespace against every address of the other half ({@link FaultSettings.Cut}), for {@code duration};
 * then the rules are flushed. Invariants: no update crosses the split while it lasts; every node trains on (its model
 * version advances); after healing every node reconnects to all others without a restart; the mean accuracy comes back
 * within {@code accuracyDrop} of its value before the split. Whether each node merges an update from the other half
 * within {@link #MERGE_WINDOW} of the heal is reported, not judged: the averaging's screening may refuse the other
 * half's models for a while because they drifted apart during the split.
 */
final class PartitionScenario {

    /** Exchanges in flight when the rules go in may still end (or fail) within this grace. */
    private static final Duration GRACE = Duration.ofSeconds(3);

    /** How long after the heal every node has to merge an update from the other half. */
    static final Duration MERGE_WINDOW = Duration.ofSeconds(30);

    private final FaultNodes nodes;
    private final FaultSettings settings;
    private final PrintWriter progress;
    private final FaultReport report = new FaultReport(
            "partition",
            List.of("node", "half", "v before", "v at heal", "fewest peers", "merged across", "after heal"));

    PartitionScenario(FaultNodes nodes, FaultSettings settings, PrintWriter progress) {
        this.nodes = nodes;
        this.settings = settings;
        this.progress = progress;
    }

    private int half(int i) {
        return i < nodes.size() / 2 ? 0 : 1;
    }

    FaultReport run() throws InterruptedException {
        if (nodes.size() < 2) {
            report.fail("a partition needs at least 2 nodes, got " + nodes.size());
            return report;
        }
        try {
            List<NodeStatus> warm = Warmup.await(nodes, settings.settle(), progress, false);
            double before = Warmup.meanAccuracy(warm);
            report.figure("mean accuracy before", before);
            split();
            Thread.sleep(GRACE);
            List<NodeStatus> atSplit = statuses();
            int[] fewest = watchSplit(atSplit);
            List<NodeStatus> atHeal = statuses();
            heal();
            long healed = System.nanoTime();
            List<NodeStatus> after = nodes.awaitAll(
                    s -> s.peerCount() >= nodes.size() - 1,
                    settings.settle(),
                    "reconnection (every node connected to the " + (nodes.size() - 1) + " others)");
            report.figure("seconds to reconnect", (System.nanoTime() - healed) / 1e9);
            long cutOff = java.util.Arrays.stream(fewest)
                    .filter(f -> f < nodes.size() - 1)
                    .count();
            report.figure("nodes that lost a peer during the split", cutOff);
            if (cutOff == 0 && settings.cut() == FaultSettings.Cut.DROP) {
                report.note("no node lost a connection during the split: a silent cut (--cut drop) is noticed when a"
                        + " keep-alive goes unanswered (30 s); --cut reset breaks the connections at once");
            }
            long[] acrossAfter = awaitCrossMerges(List.of(warm, atSplit, atHeal));
            long merging =
                    java.util.Arrays.stream(acrossAfter).filter(m -> m > 0).count();
            report.figure("nodes that merged from the other half after the heal", merging + "/" + nodes.size());
            if (merging == nodes.size()) {
                report.figure("seconds to a merge across", (System.nanoTime() - healed) / 1e9);
            } else {
                // Reconnected halves that never merge each other's models stay two consortia.
                report.fail((nodes.size() - merging) + " nodes merged no update from the other half within "
                        + MERGE_WINDOW.toSeconds() + " s of the heal: the halves stay apart (see their logs; with"
                        + " averaging.screening on, the other half's drifted models may be excluded)");
            }
            for (int i = 0; i < nodes.size(); i++) {
                long leaked = across(atHeal.get(i), i, List.of(warm.get(i), atSplit.get(i)));
                if (leaked > 0) {
                    report.fail(nodes.node(i).name() + " merged " + leaked + " updates from the other half during the"
                            + " split: the partition leaked");
                }
                if (atHeal.get(i).modelVersion() <= warm.get(i).modelVersion()) {
                    report.fail(nodes.node(i).name() + " did not train during the split (model version "
                            + warm.get(i).modelVersion() + " before, "
                            + atHeal.get(i).modelVersion() + " at heal)");
                }
                report.row(
                        nodes.node(i).name(),
                        half(i) == 0 ? "A" : "B",
                        warm.get(i).modelVersion(),
                        atHeal.get(i).modelVersion(),
                        fewest[i],
                        leaked,
                        "+" + acrossAfter[i] + " merged across, " + after.get(i).peerCount() + " peers");
            }
            Warmup.judgeAccuracy(nodes, settings, progress, report, before);
            report.passBecause(String.format(
                    Locale.ROOT,
                    "both halves trained during the %d-s split, every node reconnected after %.1f s without a"
                            + " restart and merged from the other half, mean accuracy %.3f (before: %.3f)",
                    settings.duration().toSeconds(),
                    (Double) report.figures().get("seconds to reconnect"),
                    (Double) report.figures().get("mean accuracy after"),
                    before));
        } catch (FaultException e) {
            report.fail(e.getMessage());
        } finally {
            heal();
        }
        return report;
    }

    /**
     * In each node's namespace, against every node of the other half: DROP what comes in and goes out, or (RESET)
     * answer each TCP segment that comes in with a reset, let the other half's resets in and drop the rest.
     */
    private void split() {
        for (int i = 0; i < nodes.size(); i++) {
            for (int j = 0; j < nodes.size(); j++) {
                if (half(i) == half(j)) {
                    continue;
                }
                String other = nodes.address(j);
                if (settings.cut() == FaultSettings.Cut.RESET) {
                    // The other half's resets must get in, or its refusals would be dropped like the rest.
                    nodes.runIn(
                            i,
                            List.of(
                                    "iptables",
                                    "-A",
                                    "INPUT",
                                    "-s",
                                    other,
                                    "-p",
                                    "tcp",
                                    "--tcp-flags",
                                    "RST",
                                    "RST",
                                    "-j",
                                    "ACCEPT"));
                    nodes.runIn(
                            i,
                            List.of(
                                    "iptables",
                                    "-A",
                                    "INPUT",
                                    "-s",
                                    other,
                                    "-p",
                                    "tcp",
                                    "-j",
                                    "REJECT",
                                    "--reject-with",
                                    "tcp-reset"));
                    nodes.runIn(i, List.of("iptables", "-A", "INPUT", "-s", other, "-j", "DROP"));
                } else {
                    nodes.runIn(i, List.of("iptables", "-A", "INPUT", "-s", other, "-j", "DROP"));
                    nodes.runIn(i, List.of("iptables", "-A", "OUTPUT", "-d", other, "-j", "DROP"));
                }
            }
        }
        progress.printf(
                Locale.ROOT,
                "split (%s): nodes 0-%d | %d-%d for %d s%n",
                settings.cut().name().toLowerCase(Locale.ROOT),
                nodes.size() / 2 - 1,
                nodes.size() / 2,
                nodes.size() - 1,
                settings.duration().toSeconds());
        progress.flush();
    }

    /** Flushes the rules (the namespaces hold no others); a namespace already gone is passed over. */
    private void heal() {
        for (int i = 0; i < nodes.size(); i++) {
            try {
                nodes.runIn(i, List.of("iptables", "-F", "INPUT"));
                nodes.runIn(i, List.of("iptables", "-F", "OUTPUT"));
            } catch (RuntimeException e) {
                progress.println("heal: " + nodes.node(i).name() + ": " + e.getMessage());
            }
        }
        progress.println("healed");
        progress.flush();
    }

    /** Polls once a second until the split has lasted {@code duration}; the fewest peers each node had. */
    private int[] watchSplit(List<NodeStatus> atSplit) throws InterruptedException {
        int[] fewest = atSplit.stream().mapToInt(NodeStatus::peerCount).toArray();
        long end = System.nanoTime() + settings.duration().minus(GRACE).toNanos();
        while (System.nanoTime() < end) {
            Thread.sleep(Math.min(1000, Math.max(1, (end - System.nanoTime()) / 1_000_000)));
            for (int i = 0; i < nodes.size(); i++) {
                Optional<NodeStatus> s = nodes.status(i);
                if (s.isPresent()) {
                    fewest[i] = Math.min(fewest[i], s.get().peerCount());
                }
            }
        }
        return fewest;
    }

    private List<NodeStatus> statuses() throws InterruptedException {
        return nodes.awaitAll(s -> true, settings.settle(), "status");
    }

    /**
     * Updates node {@code i} merged from nodes of the other half beyond {@code baseline}, peer by peer. A peer's
     * count lives as long as the node process and is shown only while the peer is connected, so a peer missing from
     * one status is not a peer whose count fell: baselines are the most each peer ever showed.
     */
    private long across(NodeStatus s, int i, List<NodeStatus> baseline) {
        long sum = 0;
        for (int j = 0; j < nodes.size(); j++) {
            if (half(j) != half(i)) {
                String peer = nodes.node(j).peerId();
                long base = 0;
                for (NodeStatus b : baseline) {
                    base = Math.max(base, b.mergedByPeer().getOrDefault(peer, 0L));
                }
                sum += Math.max(0, s.mergedByPeer().getOrDefault(peer, 0L) - base);
            }
        }
        return sum;
    }

    /**
     * Waits up to {@link #MERGE_WINDOW} until every node has merged an update from the other half beyond {@code
     * baseline}; the counts then (0 for a node that merged none).
     */
    private long[] awaitCrossMerges(List<List<NodeStatus>> baseline) throws InterruptedException {
        long deadline = System.nanoTime() + MERGE_WINDOW.toNanos();
        long[] now = new long[nodes.size()];
        Set<Integer> waiting = new java.util.HashSet<>();
        for (int i = 0; i < nodes.size(); i++) {
            waiting.add(i);
        }
        while (!waiting.isEmpty() && System.nanoTime() < deadline) {
            for (int i : new ArrayList<>(waiting)) {
                Optional<NodeStatus> s = nodes.status(i);
                if (s.isPresent()) {
                    int node = i;
                    now[i] = across(
                            s.get(), i, baseline.stream().map(b -> b.get(node)).toList());
                    if (now[i] > 0) {
                        waiting.remove(i);
                    }
                }
            }
            if (!waiting.isEmpty()) {
                Thread.sleep(500);
            }
        }
        return now;
    }
}
