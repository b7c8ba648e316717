/**
 * The privacy module: the egress audit log ({@link dev.chorus.privacy.audit}), a tamper-evident record of every
 * payload a node sends, so that an operator can check that only protocol messages and parameter vectors left it; and
 * consortium membership ({@link dev.chorus.privacy.membership}): institution CAs, member certificates that bind a
 * node's peer ID, organisation and role, the roster check a node applies to its peers, and CRLs.
 *
 * <p>Secure aggregation ({@link dev.chorus.privacy.secagg}) has its cryptographic and arithmetic core: key agreement,
 * mask generation, Shamir shares, quantization, the SecAgg+ communication graph, masking and dropout recovery, as a
 * library. Nothing calls it yet: the network rounds that would drive it belong to the node module and are not built,
 * and differential privacy (clipping, noise, an accountant) is not built either, so a node's models still leave it as
 * plain (possibly quantized) parameter vectors (docs/privacy.md).
 */
package dev.chorus.privacy;
