/**
 * Signed envelopes and the peer records they carry (libp2p RFC 0002 and RFC 0003): a peer's listen addresses signed
 * with its identity key, so that a third party (gossipsub's peer exchange, identify) can hand them on and the
 * receiver can check that the peer itself vouched for them.
 */
package dev.chorus.gossip.record;
