/**
 * Identity keys and peer IDs (libp2p/specs peer-ids/peer-ids.md): Ed25519 keys and their PublicKey /
 * PrivateKey protobufs, peer IDs as multihashes with their base58btc and CIDv1 text forms, and the
 * on-disk key file. Signing and verification use Bouncy Castle's Ed25519.
 */
package dev.chorus.gossip.identity;
