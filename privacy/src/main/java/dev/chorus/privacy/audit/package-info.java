/**
 * The egress audit log: one tamper-evident record for every payload a node sends (peer, protocol, kind, byte count,
 * SHA-256 of the bytes as sent, model version), so an operator can check that only protocol messages and parameter
 * vectors left the node. {@link dev.chorus.privacy.audit.EgressRecorder} is what the sending code calls;
 * {@link dev.chorus.privacy.audit.EgressAuditLog} writes the records as hash-chained JSON lines and verifies them.
 *
 * <p>JDK only: no networking, no threads of the caller are ever blocked for longer than the configured
 * back-pressure limit. The line format is specified in {@code docs/privacy.md}.
 */
package dev.chorus.privacy.audit;
