/**
 * What the commands that set things up for a user share, below the command line: a node's data directory as
 * {@code chorus init} writes it, output directories checked before long work starts, {@code --set KEY=VALUE}
 * checked against the config schema, and {@link dev.chorus.node.setup.UserError}, the one-line error for bad
 * input.
 */
package dev.chorus.node.setup;
