/**
 * The privacy module. Today it holds one thing, the egress audit log ({@link dev.chorus.privacy.audit}): a
 * tamper-evident record of every payload a node sends, so that an operator can check that only protocol messages
 * and parameter vectors left it.
 *
 * <p>The module is meant to hold, later, secure aggregation (pairwise masks, Shamir shares, dropout recovery),
 * differential privacy (clipping, noise, an accountant) and consortium membership. None of these is built yet: no
 * class here masks, noises or admits anything, and a node's models leave it as plain (possibly quantized)
 * parameter vectors (docs/privacy.md).
 */
package dev.chorus.privacy;
