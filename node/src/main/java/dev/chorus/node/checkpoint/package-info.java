/**
 * Checkpoints of a node's model: parameters, optimizer state, model version and metrics in one
 * file with a SHA-256 trailer, written atomically (temporary file, fsync, rename, directory
 * fsync), owner-only; the newest K are kept, and of the older ones one an hour and one a day for a
 * while. On start the newest usable checkpoint is resumed (checksum, finite values, the caller's
 * validation); an unusable one is skipped with a warning. A rollback moves the newer checkpoints
 * aside. Knows nothing of the network.
 */
package dev.chorus.node.checkpoint;
