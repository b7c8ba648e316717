/**
 * The small interfaces that application protocols see: a {@link Stream} with future-based read, write
 * and half-close, and the {@link StreamHandler} a protocol registers. No Netty type appears here.
 */
package dev.chorus.gossip.core;
