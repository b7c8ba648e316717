package dev.chorus.testnet.faults;

import dev.chorus.node.config.NodeConfig;
import dev.chorus.privacy.audit.AuditVerification;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code kill}: SIGKILL a random node, restart it at once, {@code kills} times, one every {@code interval}. After each
 * restart: every checkpoint file of the node verifies, the node restored its newest checkpoint (its log says which
 * version it restored) and runs at or above that version (not at 0), and its egress audit chain verifies. At the end the mean accuracy over the nodes is at most {@code
 * accuracyDrop} below where it was before the first kill (waited for up to {@code settle}).
 */
final class KillScenario {

    private final FaultNodes nodes;
    private final FaultSettings settings;
    private final PrintWriter progress;
    private final FaultReport report = new FaultReport(
            "kill",
            List.of("kill", "node", "ckpt files", "broken", "newest ckpt", "restored", "version", "audit records"));

    /** The line the daemon logs when it restores a checkpoint at start. */
    private static final Pattern RESUMED = Pattern.compile("resumed from checkpoint version (\\d+)");

    KillScenario(FaultNodes nodes, FaultSettings settings, PrintWriter progress) {
        this.nodes = nodes;
        this.settings = settings;
        this.progress = progress;
    }

    FaultReport run() throws InterruptedException {
        try {
            List<NodeStatus> warm = Warmup.await(nodes, settings.settle(), progress, true);
            double before = Warmup.meanAccuracy(warm);
            report.figure("mean accuracy before", before);
            Random random = new Random(settings.seed());
            long[] versions = new long[nodes.size()];
            for (int k = 1; k <= settings.kills(); k++) {
                long start = System.nanoTime();
                int i = random.nextInt(nodes.size());
                killAndRestart(k, i);
                long left = settings.interval().toNanos() - (System.nanoTime() - start);
                if (left > 0) {
                    Thread.sleep(Duration.ofNanos(left));
                }
            }
            for (int i = 0; i < nodes.size(); i++) {
                versions[i] = nodes.status(i).map(NodeStatus::modelVersion).orElse(-1L);
            }
            report.figure("model versions after", java.util.Arrays.toString(versions));
            Warmup.judgeAccuracy(nodes, settings, progress, report, before);
            report.passBecause(settings.kills() + " kills: every checkpoint verified, every restart resumed from its"
                    + " newest checkpoint, every audit chain verified, mean accuracy "
                    + String.format(
                            java.util.Locale.ROOT, "%.3f", report.figures().get("mean accuracy after"))
                    + " (before: " + String.format(java.util.Locale.ROOT, "%.3f", before) + ")");
        } catch (FaultException e) {
            report.fail(e.getMessage());
        } catch (IOException e) {
            report.fail("I/O error: " + e.getMessage());
        }
        return report;
    }

    /** The versions the node's log says it restored at its starts, oldest first. */
    private static List<Long> restores(NodeConfig config) throws IOException {
        Path log = config.logFile();
        if (!Files.exists(log)) {
            return List.of();
        }
        List<Long> out = new ArrayList<>();
        try (var lines = Files.lines(log, StandardCharsets.UTF_8)) {
            lines.forEach(l -> {
                Matcher m = RESUMED.matcher(l);
                if (m.find()) {
                    out.add(Long.parseLong(m.group(1)));
                }
            });
        }
        return out;
    }

    private void killAndRestart(int k, int i) throws IOException, InterruptedException {
        String name = nodes.node(i).name();
        NodeConfig config = nodes.config(i);
        nodes.kill(i);
        DiskChecks.Checkpoints ckpt;
        try {
            ckpt = DiskChecks.checkpoints(config.checkpointDir());
        } catch (UncheckedIOException e) {
            throw new FaultException(name + ": cannot list its checkpoints: " + e.getMessage());
        }
        if (!ckpt.ok()) {
            report.fail("kill " + k + ": " + name + "'s checkpoints of versions " + ckpt.broken()
                    + " do not verify after SIGKILL");
        }
        if (ckpt.newest() <= 0) {
            report.fail(
                    "kill " + k + ": " + name + " has no usable checkpoint after SIGKILL (" + ckpt.files() + " files)");
        }
        int restoresBefore = restores(config).size();
        long logBefore = Files.exists(config.logFile()) ? Files.size(config.logFile()) : 0;
        nodes.restart(i, settings.settle());
        long resumed = nodes.status(i).map(NodeStatus::modelVersion).orElse(-1L);
        List<Long> restores = restores(config);
        // A log that shrank was rotated: its last restore line is this start's.
        boolean rotated = Files.size(config.logFile()) < logBefore;
        long restored = !restores.isEmpty() && (rotated || restores.size() > restoresBefore) ? restores.getLast() : -1;
        if (restored != ckpt.newest()) {
            report.fail(
                    "kill " + k + ": " + name + (restored < 0 ? " logged no restore" : " restored version " + restored)
                            + " at its restart, not its newest checkpoint's " + ckpt.newest() + " (log: "
                            + config.logFile() + ")");
        }
        if (resumed < ckpt.newest() || resumed <= 0) {
            report.fail("kill " + k + ": " + name + " runs at model version " + resumed + " after its restart, below"
                    + " its newest checkpoint's " + ckpt.newest());
        }
        AuditVerification audit = DiskChecks.audit(config.auditDir());
        if (!audit.ok()) {
            report.fail("kill " + k + ": " + name + "'s egress audit chain is broken at " + audit.problem());
        }
        report.row(
                k,
                name,
                ckpt.files(),
                ckpt.broken().size(),
                ckpt.newest(),
                restored,
                resumed,
                audit.ok() ? audit.records() + " ok" : "BROKEN");
        progress.printf(
                java.util.Locale.ROOT,
                "kill %d: %s killed, %d checkpoint files verified (newest v%d), restored v%d, at v%d when ready,"
                        + " audit %s%n",
                k,
                name,
                ckpt.files() - ckpt.broken().size(),
                ckpt.newest(),
                restored,
                resumed,
                audit.ok() ? "ok (" + audit.records() + " records)" : "broken");
        progress.flush();
    }
}
