/**
 * The Chorus daemon: configuration, the wiring of every module (libp2p host, training, averaging, privacy) into one
 * node, and the bundled sample data. The only library module that knows all the others; the command line is in
 * {@code cli}.
 */
package dev.chorus.node;
