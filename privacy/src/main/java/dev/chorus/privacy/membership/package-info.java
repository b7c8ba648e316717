/**
 * Consortium membership: which nodes may join, decided by certificates rather than by whoever connects.
 *
 * <p>Each institution runs its own {@link dev.chorus.privacy.membership.CertificateAuthority} (Ed25519, X.509) and
 * admits its own nodes by issuing each a {@link dev.chorus.privacy.membership.MemberCertificate} that binds the node's
 * libp2p peer ID, the organisation, a {@link dev.chorus.privacy.membership.Role} and a validity period. The consortium
 * agrees on the institution CA certificates, the {@link dev.chorus.privacy.membership.Roster}, which every node holds;
 * {@link dev.chorus.privacy.membership.Roster#verify} turns a peer's certificate chain into a
 * {@link dev.chorus.privacy.membership.Verdict}. A certificate must claim its issuing CA's organisation, so no
 * institution can admit nodes in another's name. A CA withdraws a certificate with a CRL;
 * {@link dev.chorus.privacy.membership.RevocationLists} keeps the newest CRL of each roster CA.
 *
 * <p>Files, keys and checks only: no networking (the node module presents certificates on connections and spreads
 * CRLs over gossip), no command line (the cli module's {@code chorus consortium}). Bouncy Castle builds the
 * certificates, CRLs and encrypted key files; the JDK parses and verifies them. The commands and file formats are in
 * {@code docs/consortium.md}.
 */
package dev.chorus.privacy.membership;
