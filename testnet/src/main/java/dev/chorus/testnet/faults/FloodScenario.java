package dev.chorus.testnet.faults;

import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.node.api.ProcessFootprint;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * {@code flood}: the last node is stopped and its identity key and member certificate taken by a {@link Flooder}
 * that floods node 0 for {@code duration} on every surface a member reaches: for the first half within the protocol
 * (well-formed pulls, and pushes of node 0's own model back to it, at the full rate), for the second beyond it
 * (malformed pushes, junk on the announcement topic, API connections past {@code api.max_connections} and requests
 * past its rate). Invariants:
 * node 0 stays alive with no {@code OutOfMemoryError} and its heap after GC under its limit, it trains on and keeps
 * completing exchanges with the honest nodes, every honest node keeps completing exchanges during the flood, and
 * node 0's API answers again once the flood stops.
 */
final class FloodScenario {

    private static final Duration WATCH_EVERY = Duration.ofSeconds(2);

    private final FaultNodes nodes;
    private final FaultSettings settings;
    private final PrintWriter progress;
    private final FaultReport report =
            new FaultReport("flood", List.of("node", "role", "v before", "v after", "exchanges ok", "failed"));

    FloodScenario(FaultNodes nodes, FaultSettings settings, PrintWriter progress) {
        this.nodes = nodes;
        this.settings = settings;
        this.progress = progress;
    }

    FaultReport run() throws InterruptedException {
        int rogue = nodes.size() - 1;
        try {
            if (nodes.size() < 3) {
                throw new FaultException("flood needs at least 3 nodes: a victim, an honest node and the flooder");
            }
            Warmup.await(nodes, settings.settle(), progress, false);
            nodes.stop(rogue);
            List<NodeStatus> before = statuses(rogue);
            Map<String, Object> victimBefore = nodes.rawStatus(0)
                    .orElseThrow(() -> new FaultException(nodes.node(0).name() + " did not answer before the flood"));
            report.figure("node 0 resident MiB before", rssMiB(0));
            report.figure("node 0 heap after GC MiB before", process(victimBefore, "heapAfterGcBytes") / 1048576.0);
            List<NodeStatus> during;
            try (Flooder flooder = Flooder.connect(
                    nodes.config(rogue),
                    Multiaddr.parse(nodes.node(0).listen()),
                    URI.create(nodes.node(0).api()))) {
                List<NodeStatus> start = statuses(rogue);
                Duration within = settings.duration().dividedBy(2);
                flooder.start(Flooder.Phase.WITHIN);
                progress.printf(
                        Locale.ROOT,
                        "flood: %s's identity floods %s within the protocol for %d s, then beyond it for %d s%n",
                        nodes.node(rogue).name(),
                        nodes.node(0).name(),
                        within.toSeconds(),
                        settings.duration().minus(within).toSeconds());
                progress.flush();
                double peak = watch(within, "well-formed", 0);
                report.figure(
                        "node 0 peers banned after the well-formed flood",
                        nodes.rawStatus(0)
                                .map(raw -> number(raw.get("averaging"), "peerBans"))
                                .orElse(-1.0));
                flooder.start(Flooder.Phase.BEYOND);
                watch(settings.duration().minus(within), "malformed", peak);
                during = honestProgress(start, statuses(rogue), rogue);
                figures(flooder);
            }
            after(before, during, rogue);
        } catch (FaultException e) {
            report.fail(e.getMessage());
        }
        return report;
    }

    /**
     * Node 0 must stay alive through a phase of the flood; its peak resident memory (from {@code peak} on) and the
     * API's answers to this driver in the phase (named by {@code label}) are recorded.
     *
     * @return the peak resident memory in MiB
     */
    private double watch(Duration phase, String label, double peak) throws InterruptedException {
        long end = System.nanoTime() + phase.toNanos();
        int asked = 0;
        int answered = 0;
        while (System.nanoTime() < end) {
            if (FaultNodes.live(nodes.node(0)).isEmpty()) {
                throw new FaultException(nodes.node(0).name() + " died during the flood (log: "
                        + nodes.node(0).dir().resolve("logs") + ")");
            }
            peak = Math.max(peak, rssMiB(0));
            asked++;
            if (nodes.rawStatus(0).isPresent()) {
                answered++;
            }
            Thread.sleep(WATCH_EVERY);
        }
        report.figure("node 0 resident MiB, peak during the flood", peak);
        report.figure("node 0 API answers to this driver during the " + label + " flood", answered + " of " + asked);
        return peak;
    }

    /** Every honest node (not 0, not the flooder) must complete exchanges during the flood. */
    private List<NodeStatus> honestProgress(List<NodeStatus> start, List<NodeStatus> end, int rogue) {
        for (int i = 1; i < rogue; i++) {
            long ok = ok(end.get(i)) - ok(start.get(i));
            report.row(
                    nodes.node(i).name(),
                    "honest",
                    start.get(i).modelVersion(),
                    end.get(i).modelVersion(),
                    ok,
                    end.get(i).exchangeFailures() - start.get(i).exchangeFailures());
            if (ok <= 0) {
                report.fail(nodes.node(i).name() + " completed no exchange during the flood");
            }
        }
        return end;
    }

    /** Node 0 after the flood: its API answers, it trained on and exchanged, its heap stayed bounded, no OOM. */
    private void after(List<NodeStatus> before, List<NodeStatus> during, int rogue) throws InterruptedException {
        long deadline = System.nanoTime() + settings.settle().toNanos();
        Optional<Map<String, Object>> raw = Optional.empty();
        Optional<NodeStatus> victim = Optional.empty();
        while ((raw.isEmpty() || victim.isEmpty()) && System.nanoTime() < deadline) {
            raw = nodes.rawStatus(0);
            victim = nodes.status(0);
            if (raw.isEmpty() || victim.isEmpty()) {
                Thread.sleep(500);
            }
        }
        if (raw.isEmpty() || victim.isEmpty()) {
            throw new FaultException(nodes.node(0).name() + "'s API did not answer within "
                    + settings.settle().toSeconds() + " s of the flood's end");
        }
        NodeStatus v = victim.get();
        long ok = ok(v) - ok(before.getFirst());
        report.row(
                nodes.node(0).name(),
                "flooded",
                before.getFirst().modelVersion(),
                v.modelVersion(),
                ok,
                v.exchangeFailures() - before.getFirst().exchangeFailures());
        report.row(nodes.node(rogue).name(), "flooder (its identity)", "-", "-", "-", "-");
        if (v.modelVersion() <= before.getFirst().modelVersion()) {
            report.fail(nodes.node(0).name() + " did not train during the flood: version "
                    + before.getFirst().modelVersion() + " before, " + v.modelVersion() + " after");
        }
        if (ok <= 0) {
            report.fail(nodes.node(0).name() + " completed no exchange with the honest nodes during the flood");
        }
        double heap = process(raw.get(), "heapAfterGcBytes");
        double max = process(raw.get(), "heapMaxBytes");
        report.figure("node 0 heap after GC MiB after", heap / 1048576.0);
        report.figure("node 0 heap limit MiB", max / 1048576.0);
        report.figure("node 0 peers banned", number(raw.get().get("averaging"), "peerBans"));
        if (!(heap >= 0 && heap < max)) {
            report.fail(nodes.node(0).name() + "'s heap after GC (" + heap + " bytes) is not under its limit (" + max
                    + ")");
        }
        outOfMemory(0).ifPresent(report::fail);
        report.passBecause(String.format(
                Locale.ROOT,
                "%s stayed up with its heap under its limit, trained on and exchanged; every honest node exchanged"
                        + " through the flood",
                nodes.node(0).name()));
    }

    private void figures(Flooder f) {
        report.figure("flooder well-formed pulls served", f.within.pulls.get());
        report.figure("flooder well-formed pulls refused or failed", f.within.pullsFailed.get());
        report.figure("flooder well-formed pushes acknowledged", f.within.pushes.get());
        report.figure("flooder well-formed pushes refused or failed", f.within.pushesFailed.get());
        report.figure("flooder model pulls served", f.beyond.pulls.get());
        report.figure("flooder model pulls refused or failed", f.beyond.pullsFailed.get());
        report.figure("flooder pushes acknowledged", f.beyond.pushes.get());
        report.figure("flooder pushes refused or failed", f.beyond.pushesFailed.get());
        report.figure("flooder announcements published", f.published.get());
        report.figure("flooder API requests", f.apiRequests.get());
        report.figure("flooder API requests refused (401, 429)", f.apiRefused.get());
        report.figure("flooder API requests failed (connection)", f.apiFailed.get());
        report.figure("flooder API connections opened and held", f.heldOpened.get());
    }

    /** The statuses of every node but {@code skip}, which is in the list as null. */
    private List<NodeStatus> statuses(int skip) throws InterruptedException {
        List<NodeStatus> out = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            if (i == skip) {
                out.add(null);
                continue;
            }
            int node = i;
            out.add(nodes.status(i)
                    .orElseThrow(() -> new FaultException(nodes.node(node).name() + "'s API did not answer")));
        }
        return out;
    }

    private static long ok(NodeStatus s) {
        return s.exchanges() - s.exchangeFailures();
    }

    private double rssMiB(int i) {
        try {
            long kb = ProcessFootprint.field(
                    Files.readAllLines(
                            Path.of("/proc", Long.toString(nodes.node(i).pid()), "status")),
                    "VmRSS:");
            return kb < 0 ? Double.NaN : kb / 1024.0;
        } catch (IOException e) {
            return Double.NaN; // gone: the caller notices
        }
    }

    private static double process(Map<String, Object> status, String key) {
        return number(status.get("process"), key);
    }

    private static double number(Object object, String key) {
        return object instanceof Map<?, ?> m && m.get(key) instanceof Number n ? n.doubleValue() : -1;
    }

    /** The first line of the node's logs that names an {@code OutOfMemoryError}, as a failure. */
    private Optional<String> outOfMemory(int i) {
        Path logs = nodes.node(i).dir().resolve("logs");
        try (Stream<Path> files = Files.list(logs)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                try (Stream<String> lines = Files.lines(f, java.nio.charset.StandardCharsets.ISO_8859_1)) {
                    Optional<String> oom =
                            lines.filter(l -> l.contains("OutOfMemoryError")).findFirst();
                    if (oom.isPresent()) {
                        return Optional.of(nodes.node(i).name() + " ran out of memory: " + f.getFileName() + ": "
                                + oom.get().strip());
                    }
                }
            }
        } catch (IOException e) {
            return Optional.of("cannot read " + logs + ": " + e.getMessage());
        }
        return Optional.empty();
    }
}
