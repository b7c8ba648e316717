/**
 * The averaging engine: {@link dev.chorus.node.averaging.AveragingEngine} connects the trainer's step callback to an
 * {@link dev.chorus.aggregation.AveragingStrategy} and to the network, without ever making training wait; with it the
 * served snapshot ({@link dev.chorus.node.averaging.SnapshotBuffer}), the peers' pace ({@link
 * dev.chorus.node.averaging.PeerPace}), the staleness histogram, the wait at a synchronous round's barrier ({@link
 * dev.chorus.node.averaging.RoundBarrier}), and the one owner of the strategies' names and construction ({@link
 * dev.chorus.node.averaging.AveragingKind}).
 *
 * <p>The engine reaches peers only through its port, {@link dev.chorus.node.averaging.ExchangeTransport}, which the
 * wire protocol implements: this package must not touch {@code dev.chorus.node.protocol}, the announcements, the
 * daemon or the gossip module, and asks a strategy what it does rather than which class it is.
 */
package dev.chorus.node.averaging;
