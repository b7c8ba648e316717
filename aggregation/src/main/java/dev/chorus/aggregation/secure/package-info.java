/**
 * Averaging by secure aggregation in groups: {@link dev.chorus.aggregation.secure.SecureGroupAveraging} merges the
 * mean of a group round, reached through the port {@link dev.chorus.aggregation.secure.GroupRounds} that the node's
 * secure-aggregation protocol implements.
 */
package dev.chorus.aggregation.secure;
