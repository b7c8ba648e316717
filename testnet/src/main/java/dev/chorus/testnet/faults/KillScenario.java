package dev.chorus.testnet.faults;

import dev.chorus.node.config.NodeConfig;
import dev.chorus.privacy.audit.AuditVerification;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Random;

/**
 * {@code kill}: SIGKILL a random node, restart it at once, {@code kills} times, one every {@code interval}. After each
 * restart: every checkpoint file of the node verifies, the node resumed at or above its newest checkpoint's version
 * (not at 0), and its egress audit chain verifies. At the end the mean accuracy over the nodes is at most {@code
 * accuracyDrop} below where it was before the first kill (waited for up to {@code settle}).
 */
final class KillScenario {

    private final FaultNodes nodes;
    private final FaultSettings settings;
    private final PrintWriter progress;
    private final FaultReport report = new FaultReport(
            "kill",
            List.of("kill", "node", "ckpt files", "broken", "newest ckpt", "resumed at", "audit records", "audit"));

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
        nodes.restart(i, settings.settle());
        long resumed = nodes.status(i).map(NodeStatus::modelVersion).orElse(-1L);
        if (resumed < ckpt.newest() || resumed <= 0) {
            report.fail("kill " + k + ": " + name + " resumed at model version " + resumed + ", below its newest"
                    + " checkpoint's " + ckpt.newest());
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
                resumed,
                audit.records(),
                audit.ok() ? "ok" : "BROKEN");
        progress.printf(
                java.util.Locale.ROOT,
                "kill %d: %s killed, %d checkpoint files verified (newest v%d), resumed at v%d, audit %s%n",
                k,
                name,
                ckpt.files() - ckpt.broken().size(),
                ckpt.newest(),
                resumed,
                audit.ok() ? "ok (" + audit.records() + " records)" : "broken");
        progress.flush();
    }
}
