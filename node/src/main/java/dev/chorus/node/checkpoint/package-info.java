/**
 * Checkpoints of a node's model: parameters, optimizer state, model version and metrics in one
 * file with a SHA-256 trailer, written atomically (temporary file, fsync, rename, directory
 * fsync); the newest K are kept. On start the newest checkpoint whose checksum verifies is
 * resumed; a corrupt one is skipped with a warning. Knows nothing of the network.
 */
package dev.chorus.node.checkpoint;
