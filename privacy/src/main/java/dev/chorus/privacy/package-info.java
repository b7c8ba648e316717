/**
 * The privacy module: the egress audit log ({@link dev.chorus.privacy.audit}), a tamper-evident record of every
 * payload a node sends, so that an operator can check that only protocol messages and parameter vectors left it; and
 * consortium membership ({@link dev.chorus.privacy.membership}): institution CAs, member certificates that bind a
 * node's peer ID, organisation and role, the roster check a node applies to its peers, and CRLs.
 *
 * <p>The module is meant to hold, later, secure aggregation (pairwise masks, Shamir shares, dropout recovery) and
 * differential privacy (clipping, noise, an accountant). Neither is built yet: no class here masks or noises
 * anything, and a node's models leave it as plain (possibly quantized) parameter vectors (docs/privacy.md).
 */
package dev.chorus.privacy;
