package dev.chorus.privacy.audit;

import java.util.List;

/**
 * What {@link EgressAuditLog#verify} found.
 *
 * @param files log files read
 * @param records records that verified, up to the first problem
 * @param firstSeq seq of the first record (0 unless older files were pruned), or -1 when there is none
 * @param lastSeq seq of the last record that verified, or -1
 * @param head hash of the last record that verified (the value to note down elsewhere to detect a later
 *     truncation), or the genesis hash when there is none
 * @param problem the first broken record as {@code FILE:LINE: reason}, or null when the chain is intact
 * @param notices what an operator should know although the chain is intact: the chain starting after pruned
 *     files, payloads the log could not record, records cut after a crash
 */
public record AuditVerification(
        int files, long records, long firstSeq, long lastSeq, String head, String problem, List<String> notices) {

    public AuditVerification {
        notices = List.copyOf(notices);
    }

    /** Whether every record verified. */
    public boolean ok() {
        return problem == null;
    }
}
