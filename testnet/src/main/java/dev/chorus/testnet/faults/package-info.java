/**
 * The fault matrix of {@code chorus testnet faults}: scenarios that hurt real node processes of a {@code testnet up
 * --netns} (SIGKILL and restart, a network partition, packet loss, a full disk) and check an invariant each, from the
 * outside only: the nodes' HTTP API, their checkpoint files (read with the node's own {@code CheckpointStore}) and
 * their egress audit logs (checked with the privacy module's verifier). Faults on the network are {@code iptables}
 * rules inside the nodes' namespaces. Owns no node behaviour; the command that drives it is in {@code cli}.
 */
package dev.chorus.testnet.faults;
