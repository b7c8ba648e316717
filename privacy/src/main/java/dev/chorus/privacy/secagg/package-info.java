/**
 * The cryptographic and arithmetic core of secure aggregation in peer groups: SecAgg (Bonawitz, Ivanov, Kreuter,
 * Marcedone, McMahan, Patel, Ramage, Segal, Seth, "Practical Secure Aggregation for Privacy-Preserving Machine
 * Learning", CCS 2017) with the sparse communication graph of SecAgg+ (Bell, Bonawitz, Gascón, Lepoint, Raykova,
 * "Secure Single-Server Aggregation with (Poly)Logarithmic Overhead", CCS 2020). The building blocks are pure
 * functions over arrays; the round machines add state, but no networking and no threads, and read time from an
 * injectable clock.
 *
 * <h2>The protocol these classes serve</h2>
 *
 * <ol>
 *   <li>Setup: the group's n members agree on their order (0..n-1), a 32-byte group seed and the round; each derives
 *       the same {@link dev.chorus.privacy.secagg.CommunicationGraph} of degree k = O(log n).
 *   <li>Key exchange: each member u makes two {@link dev.chorus.privacy.secagg.X25519} key pairs, one for pairwise
 *       masks and one for encrypting shares, and announces both public keys signed with its Ed25519 identity key.
 *   <li>Share keys: u draws a self-mask seed b_u and splits b_u and its mask private key sk_u with
 *       {@link dev.chorus.privacy.secagg.Shamir} (threshold t) among its k neighbours, the share for neighbour v at
 *       index v + 1, each encrypted to v.
 *   <li>Masked input: u clips and quantizes its model delta ({@link dev.chorus.privacy.secagg.Quantizer}) and sends
 *       y_u = x_u + PRG(b_u) + sum_{v &gt; u} PRG(s_uv) - sum_{v &lt; u} PRG(s_uv) mod 2^32 over its neighbours
 *       ({@link dev.chorus.privacy.secagg.Masking}), where s_uv comes from X25519 and {@link
 *       dev.chorus.privacy.secagg.Hkdf} bound to the round, and PRG is {@link dev.chorus.privacy.secagg.MaskPrg}
 *       (ChaCha20).
 *   <li>Unmasking: once the set of members whose y arrived (the survivors) is fixed, every responding holder reveals,
 *       per neighbour, the share of b_u if u survived and of sk_u if not, never both ({@link
 *       dev.chorus.privacy.secagg.Recovery}); with at least t shares of every needed secret, {@link
 *       dev.chorus.privacy.secagg.Unmasking} returns the survivors' sum mod 2^32, and the quantizer decodes it. With
 *       fewer, the round aborts ({@link dev.chorus.privacy.secagg.SecAggAbortedException}) before reconstructing
 *       anything.
 * </ol>
 *
 * <h2>One group round</h2>
 *
 * {@link dev.chorus.privacy.secagg.MemberRound} and {@link dev.chorus.privacy.secagg.RelayRound} run the protocol
 * above as message-driven state machines over a {@link dev.chorus.privacy.secagg.RoundConfig}: every message goes
 * member to relay to members, as a {@link dev.chorus.privacy.secagg.SecAggMessage} with a bounded binary encoding.
 * Keys are advertised signed with the members' Ed25519 identity keys; shares travel sealed with ChaCha20-Poly1305
 * under a key from the X25519 share keys; before revealing any unmasking share, each member checks that at least t
 * survivors signed the survivor set it was sent (the consistency check of SecAgg's actively secure variant), so a
 * relay that tells members different sets learns nothing more. Each phase has a deadline; fewer than t members in
 * any phase abandon the round with a {@link dev.chorus.privacy.secagg.RoundOutcome.Abandoned}, revealing nothing
 * further. The relay learns the sum, the total sample count and who took part; fewer than t colluding members learn
 * nothing about another member's input beyond the sum.
 *
 * <h2>Where it runs</h2>
 *
 * The node runs these rounds for the {@code secure} averaging strategy ({@code dev.chorus.node.secagg}): the
 * {@code /chorus/secagg/3.0.0} protocol over authenticated connections, which checks that a message naming member i
 * comes from member i, and group formation from offers with a rotating relay. Choosing t and k from a deployment's
 * dropout and corruption rates is left to the operator (the degree's default constant is provisional, see {@link
 * dev.chorus.privacy.secagg.CommunicationGraph}).
 */
package dev.chorus.privacy.secagg;
