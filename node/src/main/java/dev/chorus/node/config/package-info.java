/**
 * The node's configuration: the schema of every key (name, type, default, description) defined
 * once in code ({@link dev.chorus.node.config.ConfigSchema}), the YAML loader that validates a file
 * against it once at start, the immutable {@link dev.chorus.node.config.NodeConfig} it yields, and
 * the generators of {@code docs/config.md} and of the starter {@code node.yaml}, both from the same
 * schema so that they cannot drift. Knows nothing of the network or of training.
 */
package dev.chorus.node.config;
