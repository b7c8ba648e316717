/**
 * OpenSSL 3's libcrypto as an alternative to the Java implementations of a primitive (the Noise transport's
 * ChaCha20-Poly1305, Ed25519): the {@code network.crypto} mode, and the probe that loads the library and runs a
 * known-answer test before anything uses it. The bindings themselves live beside their users ({@code noise},
 * {@code identity}).
 */
package dev.chorus.gossip.libcrypto;
