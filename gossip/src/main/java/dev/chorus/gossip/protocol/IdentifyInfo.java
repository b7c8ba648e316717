package dev.chorus.gossip.protocol;

import dev.chorus.gossip.encoding.ProtobufReader;
import dev.chorus.gossip.encoding.ProtobufWriter;
import dev.chorus.gossip.identity.InvalidKeyException;
import dev.chorus.gossip.identity.PeerId;
import dev.chorus.gossip.identity.PublicKey;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.gossip.multiaddr.MultiaddrException;
import dev.chorus.gossip.record.RecordException;
import dev.chorus.gossip.record.SignedEnvelope;
import io.netty.handler.codec.CorruptedFrameException;
import java.util.ArrayList;
import java.util.List;

/**
 * The identify record ({@code Identify} protobuf of libp2p/specs identify/README.md). Addresses the
 * node does not understand (e.g. QUIC or WebRTC ones) are skipped when decoding; fields may be null
 * when the remote omitted them.
 */
public record IdentifyInfo(
        String protocolVersion,
        String agentVersion,
        PublicKey publicKey,
        List<Multiaddr> listenAddrs,
        Multiaddr observedAddr,
        List<String> protocols,
        SignedEnvelope signedPeerRecord) {
    public static final int MAX_ADDRS = 128;
    public static final int MAX_PROTOCOLS = 256;

    public IdentifyInfo {
        listenAddrs = List.copyOf(listenAddrs);
        protocols = List.copyOf(protocols);
    }

    /** Without a signed peer record. */
    public IdentifyInfo(
            String protocolVersion,
            String agentVersion,
            PublicKey publicKey,
            List<Multiaddr> listenAddrs,
            Multiaddr observedAddr,
            List<String> protocols) {
        this(protocolVersion, agentVersion, publicKey, listenAddrs, observedAddr, protocols, null);
    }

    /** The peer whose key this record carries, if it carries one. */
    public PeerId peerId() {
        return publicKey == null ? null : publicKey.toPeerId();
    }

    /** Encodes in field order 1..6, then 8 (decoders must accept any order anyway). */
    public byte[] encode() {
        ProtobufWriter w = new ProtobufWriter();
        if (publicKey != null) {
            w.bytes(1, publicKey.toProtobuf());
        }
        for (Multiaddr a : listenAddrs) {
            w.bytes(2, a.toBytes());
        }
        for (String p : protocols) {
            w.string(3, p);
        }
        if (observedAddr != null) {
            w.bytes(4, observedAddr.toBytes());
        }
        if (protocolVersion != null) {
            w.string(5, protocolVersion);
        }
        if (agentVersion != null) {
            w.string(6, agentVersion);
        }
        if (signedPeerRecord != null) {
            w.bytes(8, signedPeerRecord.encode());
        }
        return w.toByteArray();
    }

    /** @throws IllegalArgumentException for malformed protobuf, a bad key, or too many entries */
    public static IdentifyInfo decode(byte[] bytes) {
        String protocolVersion = null;
        String agentVersion = null;
        PublicKey key = null;
        List<Multiaddr> addrs = new ArrayList<>();
        Multiaddr observed = null;
        List<String> protocols = new ArrayList<>();
        SignedEnvelope record = null;
        try {
            ProtobufReader r = new ProtobufReader(bytes);
            while (r.next()) {
                switch (r.field()) {
                    case 1 -> key = PublicKey.fromProtobuf(r.bytes());
                    case 2 -> {
                        if (addrs.size() >= MAX_ADDRS) {
                            throw new IllegalArgumentException("identify lists more than " + MAX_ADDRS + " addresses");
                        }
                        Multiaddr a = parseOrNull(r.bytes());
                        if (a != null) {
                            addrs.add(a);
                        }
                    }
                    case 3 -> {
                        if (protocols.size() >= MAX_PROTOCOLS) {
                            throw new IllegalArgumentException(
                                    "identify lists more than " + MAX_PROTOCOLS + " protocols");
                        }
                        protocols.add(r.string());
                    }
                    case 4 -> observed = parseOrNull(r.bytes());
                    case 5 -> protocolVersion = r.string();
                    case 6 -> agentVersion = r.string();
                    case 8 -> record = envelopeOrNull(r.bytes());
                    default -> r.skip();
                }
            }
        } catch (CorruptedFrameException e) {
            throw new IllegalArgumentException("malformed identify message: " + e.getMessage(), e);
        } catch (InvalidKeyException e) {
            throw new IllegalArgumentException("identify carries a bad public key: " + e.getMessage(), e);
        }
        return new IdentifyInfo(protocolVersion, agentVersion, key, addrs, observed, protocols, record);
    }

    /**
     * A signed peer record as an envelope, not verified yet; null when it is malformed, which does not spoil the
     * rest of the message (the peer's identify is still good without it).
     */
    private static SignedEnvelope envelopeOrNull(byte[] b) {
        try {
            return SignedEnvelope.decode(b);
        } catch (RecordException e) {
            return null;
        }
    }

    private static Multiaddr parseOrNull(byte[] b) {
        try {
            return Multiaddr.fromBytes(b);
        } catch (MultiaddrException e) {
            return null;
        }
    }

    /** A push carries only changed fields: those it has replace these. */
    public IdentifyInfo merge(IdentifyInfo push) {
        return new IdentifyInfo(
                push.protocolVersion != null ? push.protocolVersion : protocolVersion,
                push.agentVersion != null ? push.agentVersion : agentVersion,
                push.publicKey != null ? push.publicKey : publicKey,
                push.listenAddrs.isEmpty() ? listenAddrs : push.listenAddrs,
                push.observedAddr != null ? push.observedAddr : observedAddr,
                push.protocols.isEmpty() ? protocols : push.protocols,
                push.signedPeerRecord != null ? push.signedPeerRecord : signedPeerRecord);
    }
}
