/**
 * Model announcements and consortium membership: the signed {@link dev.chorus.node.announce.ModelAnnouncement} of a
 * node's served model (version, sample count, digest, metrics), its signature and replay checks ({@link
 * dev.chorus.node.announce.SignedAnnouncements}), the gossipsub topic that carries it and an in-memory one for tests,
 * and {@link dev.chorus.node.announce.ConsortiumMembers}, the newest announcement per member.
 *
 * <p>Announcements are small and never carry parameters. This package uses the wire protocol's architecture hash,
 * digest and error codes ({@code dev.chorus.node.protocol}) so that an announcement names a model as the exchange
 * does; it must not touch the averaging engine or the daemon.
 */
package dev.chorus.node.announce;
