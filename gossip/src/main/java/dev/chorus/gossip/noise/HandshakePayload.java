package dev.chorus.gossip.noise;

import dev.chorus.gossip.encoding.ProtobufReader;
import dev.chorus.gossip.encoding.ProtobufWriter;
import io.netty.handler.codec.CorruptedFrameException;
import java.util.ArrayList;
import java.util.List;

/**
 * The libp2p {@code NoiseHandshakePayload}: {@code identity_key = 1}, {@code identity_sig = 2}, {@code
 * extensions = 4} (a {@code NoiseExtensions} with {@code webtransport_certhashes = 1} and {@code
 * stream_muxers = 2}).
 */
public record HandshakePayload(byte[] identityKey, byte[] identitySig, List<String> streamMuxers) {
    /** Bounds what the remote can make us collect from its payload. */
    static final int MAX_MUXERS = 16;

    public HandshakePayload {
        streamMuxers = List.copyOf(streamMuxers);
    }

    public byte[] encode() {
        ProtobufWriter w = new ProtobufWriter().bytes(1, identityKey).bytes(2, identitySig);
        if (!streamMuxers.isEmpty()) {
            ProtobufWriter ext = new ProtobufWriter();
            for (String m : streamMuxers) {
                ext.string(2, m);
            }
            w.message(4, ext);
        }
        return w.toByteArray();
    }

    public static HandshakePayload decode(byte[] bytes) {
        byte[] key = null;
        byte[] sig = null;
        List<String> muxers = new ArrayList<>();
        try {
            ProtobufReader r = new ProtobufReader(bytes);
            while (r.next()) {
                switch (r.field()) {
                    case 1 -> key = r.bytes();
                    case 2 -> sig = r.bytes();
                    case 4 -> {
                        ProtobufReader ext = r.message();
                        while (ext.next()) {
                            if (ext.field() == 2) {
                                if (muxers.size() >= MAX_MUXERS) {
                                    throw new NoiseException(
                                            "handshake payload lists more than " + MAX_MUXERS + " muxers");
                                }
                                muxers.add(ext.string());
                            } else {
                                ext.skip();
                            }
                        }
                    }
                    default -> r.skip();
                }
            }
        } catch (CorruptedFrameException e) {
            throw new NoiseException("malformed handshake payload: " + e.getMessage(), e);
        }
        if (key == null || sig == null) {
            throw new NoiseException("handshake payload lacks " + (key == null ? "identity_key" : "identity_sig"));
        }
        return new HandshakePayload(key, sig, muxers);
    }
}
