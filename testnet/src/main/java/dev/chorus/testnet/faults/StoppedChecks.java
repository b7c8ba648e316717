package dev.chorus.testnet.faults;

import dev.chorus.node.config.ConfigLoader;
import dev.chorus.node.config.NodeConfig;
import dev.chorus.privacy.audit.AuditVerification;
import dev.chorus.testnet.localnet.LocalnetManifest;
import java.util.List;

/**
 * The last check of every scenario, once the nodes are stopped and nothing writes any more: every node's checkpoint
 * files verify and its egress audit chain verifies.
 */
public final class StoppedChecks {

    private StoppedChecks() {}

    public static void run(List<LocalnetManifest.Node> nodes, FaultReport report) throws InterruptedException {
        int checkpoints = 0;
        int chains = 0;
        for (LocalnetManifest.Node n : nodes) {
            NodeConfig config = ConfigLoader.load(n.dir().resolve("node.yaml"), List.of());
            DiskChecks.Checkpoints c = DiskChecks.checkpoints(config.checkpointDir());
            checkpoints += c.files() - c.broken().size();
            if (!c.ok()) {
                report.fail(n.name() + "'s checkpoints of versions " + c.broken() + " do not verify after the stop");
            }
            AuditVerification a = DiskChecks.audit(config.auditDir());
            if (a.ok()) {
                chains++;
            } else {
                report.fail(n.name() + "'s egress audit chain is broken at " + a.problem() + " after the stop");
            }
        }
        report.figure("checkpoint files verified after the stop", (long) checkpoints);
        report.figure("audit chains verified after the stop", chains + "/" + nodes.size());
    }
}
