/**
 * Wire encodings shared by every libp2p layer: unsigned varints (multiformats/unsigned-varint), uvarint
 * length-prefixed messages, a small protobuf writer/reader, base58btc and base32 (multibase). Pure
 * functions over bytes; the only Netty types here are {@code ByteBuf} and the codec exceptions.
 */
package dev.chorus.gossip.encoding;
