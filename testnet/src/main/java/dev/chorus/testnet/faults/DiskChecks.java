package dev.chorus.testnet.faults;

import dev.chorus.node.checkpoint.CheckpointStore;
import dev.chorus.privacy.audit.AuditLogException;
import dev.chorus.privacy.audit.AuditVerification;
import dev.chorus.privacy.audit.EgressAuditLog;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What a scenario checks on a node's disk, with the node's own readers: every checkpoint file through {@link
 * CheckpointStore} (checksum, version, finite values) and the egress audit log's hash chain through {@link
 * EgressAuditLog#verify}.
 */
final class DiskChecks {

    private DiskChecks() {}

    /**
     * The checkpoints in one directory.
     *
     * @param files checkpoint files found
     * @param newest the newest version that verifies; -1 when none does
     * @param broken the versions whose file does not verify
     */
    record Checkpoints(int files, long newest, List<Long> broken) {
        Checkpoints {
            broken = List.copyOf(broken);
        }

        boolean ok() {
            return broken.isEmpty();
        }
    }

    /** Reads and verifies every checkpoint file in {@code dir}. */
    static Checkpoints checkpoints(Path dir) {
        // keep = MAX: a store that only reads never prunes, whatever its retention says.
        CheckpointStore store = new CheckpointStore(dir, Integer.MAX_VALUE);
        List<Long> versions = store.versions();
        List<Long> broken = new ArrayList<>();
        long newest = -1;
        for (long v : versions) {
            if (store.load(v).isPresent()) {
                newest = Math.max(newest, v);
            } else {
                broken.add(v);
            }
        }
        return new Checkpoints(versions.size(), newest, broken);
    }

    /**
     * Verifies the audit chain in {@code dir}. The node appends while this reads, so a last line caught half-written
     * reads as broken: a problem is read again up to twice, 300 ms apart, and only one that stays counts.
     */
    static AuditVerification audit(Path dir) throws InterruptedException {
        AuditVerification v = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            try {
                v = EgressAuditLog.verify(dir);
            } catch (AuditLogException e) {
                v = new AuditVerification(0, 0, -1, -1, "", "cannot read: " + e.getMessage(), List.of());
            }
            if (v.ok()) {
                return v;
            }
            Thread.sleep(300);
        }
        return v;
    }
}
