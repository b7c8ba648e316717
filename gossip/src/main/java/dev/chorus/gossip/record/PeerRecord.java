package dev.chorus.gossip.record;

import dev.chorus.gossip.encoding.ProtobufReader;
import dev.chorus.gossip.encoding.ProtobufWriter;
import dev.chorus.gossip.identity.InvalidPeerIdException;
import dev.chorus.gossip.identity.PeerId;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.multiaddr.Multiaddr;
import io.netty.handler.codec.CorruptedFrameException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A libp2p peer record (RFC 0003): {@code PeerRecord { bytes peer_id = 1; uint64 seq = 2; repeated AddressInfo
 * addresses = 3; }} with {@code AddressInfo { bytes multiaddr = 1; }}, carried in a {@link SignedEnvelope} of
 * domain {@value #DOMAIN} and payload type {@code 0x03 0x01} (the multicodec {@code libp2p-peer-record}). A higher
 * {@code seq} replaces a lower one; go-libp2p and js-libp2p use the time in milliseconds or nanoseconds.
 *
 * @param peerId whose addresses these are: the envelope's signer
 * @param seq the record's sequence number
 * @param addresses the peer's listen addresses, without {@code /p2p}
 */
public record PeerRecord(PeerId peerId, long seq, List<Multiaddr> addresses) {

    public static final String DOMAIN = "libp2p-peer-record";

    private static final byte[] PAYLOAD_TYPE = {0x03, 0x01};

    /** The most addresses a record may list; more is refused, as a peer would not listen on so many. */
    public static final int MAX_ADDRESSES = 32;

    public PeerRecord {
        addresses = List.copyOf(addresses);
        if (addresses.size() > MAX_ADDRESSES) {
            throw new RecordException(
                    "peer record with " + addresses.size() + " addresses, more than " + MAX_ADDRESSES);
        }
    }

    /** This record signed by {@code key}, which must be the record's peer's. */
    public SignedEnvelope seal(PrivateKey key) {
        if (!key.peerId().equals(peerId)) {
            throw new IllegalArgumentException("a peer record of " + peerId + " signed by " + key.peerId());
        }
        ProtobufWriter w = new ProtobufWriter().bytes(1, peerId.toBytes()).varint(2, seq);
        for (Multiaddr a : addresses) {
            w.message(3, new ProtobufWriter().bytes(1, a.toBytes()));
        }
        return SignedEnvelope.seal(key, DOMAIN, PAYLOAD_TYPE, w.toByteArray());
    }

    /**
     * The peer record in {@code envelope}, once its signature verifies for {@link #DOMAIN}, its payload type is a
     * peer record's and the record names the signer's peer ID. Addresses that do not parse are left out.
     *
     * @throws RecordException otherwise, or when the record is malformed or lists too many addresses
     */
    public static PeerRecord open(SignedEnvelope envelope) {
        if (!Arrays.equals(envelope.payloadType(), PAYLOAD_TYPE)) {
            throw new RecordException("signed envelope does not hold a peer record (payload type "
                    + java.util.HexFormat.of().formatHex(envelope.payloadType()) + ")");
        }
        if (envelope.publicKey().type() != dev.chorus.gossip.identity.KeyType.ED25519) {
            throw new RecordException(
                    "peer record signed with a " + envelope.publicKey().type() + " key, which this node cannot verify");
        }
        if (!envelope.verify(DOMAIN)) {
            throw new RecordException("peer record's signature does not verify");
        }
        PeerId peer = null;
        long seq = 0;
        List<Multiaddr> addrs = new ArrayList<>();
        try {
            ProtobufReader r = new ProtobufReader(envelope.payload());
            while (r.next()) {
                switch (r.field()) {
                    case 1 -> peer = PeerId.fromBytes(r.bytes());
                    case 2 -> seq = r.varint();
                    case 3 -> {
                        if (addrs.size() >= MAX_ADDRESSES) {
                            throw new RecordException("peer record lists more than " + MAX_ADDRESSES + " addresses");
                        }
                        address(r.message()).ifPresent(addrs::add);
                    }
                    default -> r.skip();
                }
            }
        } catch (CorruptedFrameException | InvalidPeerIdException e) {
            throw new RecordException("malformed peer record: " + e.getMessage(), e);
        }
        if (peer == null) {
            throw new RecordException("peer record lacks its peer ID");
        }
        PeerId signer = envelope.publicKey().toPeerId();
        if (!peer.equals(signer)) {
            throw new RecordException("peer record of " + peer + " signed by " + signer);
        }
        return new PeerRecord(peer, seq, addrs);
    }

    /** Decodes and opens an encoded envelope ({@link SignedEnvelope#decode}, {@link #open}). */
    public static PeerRecord open(byte[] envelope) {
        return open(SignedEnvelope.decode(envelope));
    }

    private static java.util.Optional<Multiaddr> address(ProtobufReader info) {
        java.util.Optional<Multiaddr> out = java.util.Optional.empty();
        while (info.next()) {
            if (info.field() == 1) {
                try {
                    out = java.util.Optional.of(Multiaddr.fromBytes(info.bytes()));
                } catch (RuntimeException unknownProtocol) {
                    out = java.util.Optional.empty();
                }
            } else {
                info.skip();
            }
        }
        return out;
    }
}
