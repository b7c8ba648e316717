package dev.chorus.testnet.faults;

import dev.chorus.node.config.NodeConfig;
import dev.chorus.privacy.audit.AuditVerification;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * {@code diskfull}: one node (picked by the seed) is stopped, its data directory moved onto a small tmpfs mounted in its
 * place (its {@code logs/} bind-mounted from the real disk, so that what it logs survives), and started again; once it
 * has checkpointed there, a filler file takes every free byte for {@code duration}, then is deleted. Invariants: the
 * node trains on while its disk is full; it logs the checkpoints it cannot write; every checkpoint file it had when
 * the disk filled is still there and verifies; once space returns it writes a new checkpoint; its audit chain
 * verifies. At the end the node is stopped and its data directory copied back to the real disk.
 */
final class DiskFullScenario {

    private static final String TMPFS_SIZE = "16m";

    private final FaultNodes nodes;
    private final FaultSettings settings;
    private final PrintWriter progress;
    private final FaultReport report = new FaultReport(
            "diskfull", List.of("phase", "model version", "checkpoints", "newest", "failed writes logged"));

    DiskFullScenario(FaultNodes nodes, FaultSettings settings, PrintWriter progress) {
        this.nodes = nodes;
        this.settings = settings;
        this.progress = progress;
    }

    FaultReport run() throws InterruptedException {
        int d = new Random(settings.seed()).nextInt(nodes.size());
        Path home = nodes.node(d).dir();
        Path saved = home.resolveSibling(home.getFileName() + ".disk");
        Path logs = home.resolveSibling(home.getFileName() + ".logs");
        boolean mounted = false;
        try {
            Warmup.await(nodes, settings.settle(), progress, false);
            nodes.stop(d);
            mountTmpfs(home, saved, logs);
            mounted = true;
            nodes.restart(d, settings.settle());
            NodeConfig config = nodes.config(d);
            progress.printf(
                    Locale.ROOT,
                    "%s: data directory on a %s tmpfs%n",
                    nodes.node(d).name(),
                    TMPFS_SIZE);
            progress.flush();
            long restored = status(d).modelVersion();
            awaitCheckpointAbove(config, restored, "before the disk fills");
            fillAndJudge(d, config);
        } catch (FaultException e) {
            report.fail(e.getMessage());
        } catch (IOException e) {
            report.fail("I/O error: " + e.getMessage());
        } finally {
            if (mounted) {
                unmount(d, home, saved, logs);
            }
        }
        return report;
    }

    private void fillAndJudge(int d, NodeConfig config) throws IOException, InterruptedException {
        String name = nodes.node(d).name();
        DiskChecks.Checkpoints before = DiskChecks.checkpoints(config.checkpointDir());
        Set<Path> had =
                new HashSet<>(new dev.chorus.node.checkpoint.CheckpointStore(config.checkpointDir(), 1).files());
        NodeStatus full = status(d);
        int failedBefore = failedWrites(config);
        Path filler = config.checkpointDir().getParent().resolve("filler");
        long filled = fill(filler);
        report.figure("bytes taken by the filler", filled);
        report.row("filled", full.modelVersion(), before.files(), before.newest(), failedBefore);
        progress.printf(
                Locale.ROOT,
                "%s: disk full (%d bytes of filler) for %d s%n",
                name,
                filled,
                settings.duration().toSeconds());
        progress.flush();
        Thread.sleep(settings.duration());
        NodeStatus during = status(d);
        int failedDuring = failedWrites(config);
        DiskChecks.Checkpoints after = DiskChecks.checkpoints(config.checkpointDir());
        report.row("full", during.modelVersion(), after.files(), after.newest(), failedDuring);
        if (during.modelVersion() <= full.modelVersion()) {
            report.fail(name + " stopped training while its disk was full (model version " + full.modelVersion()
                    + " then " + during.modelVersion() + ")");
        }
        if (failedDuring <= failedBefore) {
            report.fail(name + " logged no failed checkpoint write while its disk was full (" + config.logFile() + ")");
        }
        for (Path f : had) {
            if (!Files.exists(f)) {
                report.fail(name + " lost checkpoint " + f.getFileName() + " while its disk was full");
            }
        }
        if (!after.ok()) {
            report.fail(name + "'s checkpoints of versions " + after.broken() + " do not verify after the disk filled");
        }
        Files.delete(filler);
        long freed = System.nanoTime();
        long newest =
                awaitCheckpointAbove(config, Math.max(after.newest(), during.modelVersion()), "once space returned");
        report.figure("seconds to a checkpoint once space returned", (System.nanoTime() - freed) / 1e9);
        DiskChecks.Checkpoints recovered = DiskChecks.checkpoints(config.checkpointDir());
        report.row("freed", status(d).modelVersion(), recovered.files(), newest, failedWrites(config));
        AuditVerification audit = DiskChecks.audit(config.auditDir());
        if (!audit.ok()) {
            report.fail(name + "'s egress audit chain is broken at " + audit.problem());
        }
        report.figure("audit notices", (long) audit.notices().size());
        report.passBecause(name + " trained on with a full disk (v" + full.modelVersion() + " to v"
                + during.modelVersion() + "), logged " + (failedDuring - failedBefore) + " failed checkpoint writes,"
                + " kept its " + had.size() + " checkpoints and wrote v" + newest + " once space returned");
    }

    private NodeStatus status(int d) throws InterruptedException {
        return nodes.status(d)
                .orElseThrow(() -> new FaultException(nodes.node(d).name() + "'s API does not answer"));
    }

    /** Waits for a verified checkpoint newer than {@code version}; its version. */
    private long awaitCheckpointAbove(NodeConfig config, long version, String when) throws InterruptedException {
        long deadline = System.nanoTime() + settings.settle().toNanos();
        while (true) {
            long newest = DiskChecks.checkpoints(config.checkpointDir()).newest();
            if (newest > version) {
                return newest;
            }
            if (System.nanoTime() > deadline) {
                throw new FaultException("no checkpoint above version " + version + " " + when + " within "
                        + settings.settle().toSeconds() + " s");
            }
            Thread.sleep(250);
        }
    }

    /** Lines of the node's log that say a checkpoint could not be written. */
    private static int failedWrites(NodeConfig config) throws IOException {
        if (!Files.exists(config.logFile())) {
            return 0;
        }
        try (var lines = Files.lines(config.logFile(), StandardCharsets.ISO_8859_1)) {
            return (int) lines.filter(l -> l.contains("checkpoint of version") && l.contains("failed"))
                    .count();
        }
    }

    /** Writes zeros to {@code file} until the file system refuses; the bytes written. */
    private static long fill(Path file) {
        byte[] chunk = new byte[64 * 1024];
        long written = 0;
        try (OutputStream out = Files.newOutputStream(file)) {
            while (true) {
                out.write(chunk);
                written += chunk.length;
            }
        } catch (IOException full) {
            return written;
        }
    }

    /** Moves {@code home} onto a tmpfs mounted at its place; {@code home/logs} is bind-mounted from {@code logs}. */
    private void mountTmpfs(Path home, Path saved, Path logs) throws IOException, InterruptedException {
        sh(List.of("cp", "-a", home.toString(), saved.toString()));
        sh(List.of("cp", "-a", home.resolve("logs").toString(), logs.toString()));
        sh(List.of("mount", "-t", "tmpfs", "-o", "size=" + TMPFS_SIZE + ",mode=0700", "tmpfs", home.toString()));
        sh(List.of("cp", "-a", saved + "/.", home.toString()));
        sh(List.of("mount", "--bind", logs.toString(), home.resolve("logs").toString()));
    }

    /** Stops the node, copies the tmpfs back over the data directory on disk and unmounts; problems go to progress. */
    private void unmount(int d, Path home, Path saved, Path logs) throws InterruptedException {
        // Cleanup runs even when the scenario was interrupted: the flag is set aside until the tmpfs is gone.
        boolean interrupted = Thread.interrupted();
        try {
            cleanUp(d, home, saved, logs);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void cleanUp(int d, Path home, Path saved, Path logs) throws InterruptedException {
        nodes.stop(d);
        List<List<String>> steps = List.of(
                List.of("umount", home.resolve("logs").toString()),
                List.of("rm", "-rf", saved.toString()),
                List.of("cp", "-a", home.toString(), saved.toString()),
                List.of("umount", home.toString()),
                List.of("rm", "-rf", home.resolve("logs").toString()),
                List.of("cp", "-a", saved + "/.", home.toString()),
                List.of("rm", "-f", home.resolve("filler").toString()),
                List.of("rm", "-rf", home.resolve("logs").toString()),
                List.of("cp", "-a", logs.toString(), home.resolve("logs").toString()),
                List.of("rm", "-rf", saved.toString(), logs.toString()));
        for (List<String> step : steps) {
            try {
                sh(step);
            } catch (IOException | FaultException e) {
                progress.println("diskfull cleanup: " + e.getMessage());
                if (step.getFirst().equals("umount")) {
                    sh2(List.of("umount", "-l", step.getLast()));
                }
            }
        }
        progress.flush();
    }

    private void sh2(List<String> cmd) throws InterruptedException {
        try {
            sh(cmd);
        } catch (IOException | FaultException e) {
            progress.println("diskfull cleanup: " + e.getMessage());
        }
    }

    private static void sh(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new FaultException(String.join(" ", cmd) + ": no exit within 60 s");
        }
        if (p.exitValue() != 0) {
            throw new FaultException(String.join(" ", cmd) + ": exit " + p.exitValue() + ": " + out);
        }
    }
}
