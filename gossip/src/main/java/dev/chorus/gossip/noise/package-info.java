/**
 * The Noise secure channel ({@code /noise}, libp2p/specs noise/README.md): {@code
 * Noise_XX_25519_ChaChaPoly_SHA256} per the Noise Protocol Framework rev. 34, with the libp2p handshake
 * payload (identity key, signature over the static key, extensions incl. inlined muxer negotiation),
 * and the 2-byte length framed transport. X25519 from Bouncy Castle; SHA-256 and HMAC from the JDK;
 * the transport's ChaCha20-Poly1305 from OpenSSL's libcrypto (foreign function API) or the JDK, as
 * {@link dev.chorus.gossip.noise.NoiseCiphers} selects, the handshake's always from the JDK.
 */
package dev.chorus.gossip.noise;
