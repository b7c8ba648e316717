/**
 * The Chorus daemon: configuration, the command line, and the wiring of every module (libp2p host,
 * training, averaging, privacy) into one node. The only module that knows all the others.
 */
package dev.chorus.node;
