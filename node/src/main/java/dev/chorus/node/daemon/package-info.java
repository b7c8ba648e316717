/**
 * The node daemon: lays out the data directory, loads the local data set, starts the libp2p host
 * and dials the bootstrap peers, restores the newest valid checkpoint, runs the local training
 * loop with periodic evaluation and checkpoints, serves the HTTP API, and shuts all of it down in
 * order on SIGTERM. The averaging engine plugs into {@link dev.chorus.node.daemon.TrainingLoop}
 * as a {@link dev.chorus.learning.train.StepListener}; {@link dev.chorus.node.daemon.NodeAveraging}
 * assembles it with the model exchange, for the daemon and the in-process testnet alike.
 */
package dev.chorus.node.daemon;
