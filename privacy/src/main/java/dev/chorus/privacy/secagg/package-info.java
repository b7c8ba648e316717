/**
 * The cryptographic and arithmetic core of secure aggregation in peer groups: SecAgg (Bonawitz, Ivanov, Kreuter,
 * Marcedone, McMahan, Patel, Ramage, Segal, Seth, "Practical Secure Aggregation for Privacy-Preserving Machine
 * Learning", CCS 2017) with the sparse communication graph of SecAgg+ (Bell, Bonawitz, Gascón, Lepoint, Raykova,
 * "Secure Single-Server Aggregation with (Poly)Logarithmic Overhead", CCS 2020). Pure functions over arrays: no
 * networking, no clocks, no threads.
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
 * <h2>Not here yet</h2>
 *
 * The network rounds and their deadlines, the messages and their encryption to neighbours (authenticated encryption
 * under the second X25519 key), signatures over keys and messages, the consistency check of the survivor set that
 * SecAgg's actively secure variant adds, relaying through peers, and choosing t and k from a
 * deployment's dropout and corruption rates: all belong to the node module, which will drive these classes. The
 * default degree's constant is provisional (see {@link dev.chorus.privacy.secagg.CommunicationGraph}).
 */
package dev.chorus.privacy.secagg;
