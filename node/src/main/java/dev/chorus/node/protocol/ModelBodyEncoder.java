package dev.chorus.node.protocol;

import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.node.protocol.FragmentCatalog.FragmentName;
import dev.chorus.node.protocol.ModelExchangeCodec.BodyHeader;
import dev.chorus.node.protocol.ModelExchangeCodec.Indexing;
import java.nio.ByteBuffer;
import java.security.MessageDigest;

/**
 * Turns a parameter vector (or a fragment of one) into a PARAMS or FRAGMENT header frame and CHUNK frames, produced
 * one at a time so a large model is never encoded into one buffer. The digest is computed up front over exactly
 * the float32 values the receiver will decode (after quantization), which costs one extra pass.
 */
public final class ModelBodyEncoder {

    private final BodyHeader header;
    private final float[] values;
    private final int[] indices; // explicit indices, or null
    private int nextChunk;

    /**
     * @param architecture this node's architecture hash
     * @param update what to send (its values are read, not copied, while chunks are produced)
     * @param dtype the encoding
     * @param chunkValues values per chunk
     * @param catalog known fragmentations, to name fragments by number; may be null
     * @throws IllegalArgumentException if a value is not finite (nothing invalid is ever sent)
     */
    public ModelBodyEncoder(
            byte[] architecture, ModelUpdate update, Dtype dtype, int chunkValues, FragmentCatalog catalog) {
        if (chunkValues < 1 || chunkValues > ExchangeLimits.CHUNK_VALUES_CEILING) {
            throw new IllegalArgumentException("chunk of " + chunkValues + " values");
        }
        this.values = update.values();
        Indexing indexing = Indexing.NONE;
        FragmentName name = null;
        int[] explicit = null;
        if (update.isFragment()) {
            name = catalog == null ? null : catalog.nameOf(update.indices(), update.dimension());
            if (name != null) {
                indexing = Indexing.SEEDED;
            } else {
                indexing = Indexing.EXPLICIT;
                explicit = update.indices();
            }
        }
        this.indices = explicit;
        byte[] digest = digest(dtype, values, chunkValues, explicit);
        this.header = new BodyHeader(
                new BodyHeader.Model(architecture, update.dimension(), update.version(), update.sampleCount()),
                update.content(),
                new BodyHeader.Encoding(dtype, values.length, chunkValues),
                digest,
                new BodyHeader.Coordinates(indexing, name));
    }

    public BodyHeader header() {
        return header;
    }

    /** The PARAMS or FRAGMENT frame. */
    public byte[] headerFrame() {
        return ModelExchangeCodec.encodeBodyHeader(header);
    }

    public boolean hasNextChunk() {
        return nextChunk < header.chunkCount();
    }

    /** The next CHUNK frame. */
    public byte[] nextChunkFrame() {
        if (!hasNextChunk()) {
            throw new IllegalStateException("no chunk left");
        }
        int index = nextChunk++;
        int from = index * header.encoding().chunkValues();
        int n = Math.min(header.encoding().chunkValues(), values.length - from);
        Dtype dtype = header.encoding().dtype();
        int prefix = dtype.chunkPrefixBytes();
        int indexBytes = indices == null ? 0 : 4 * n;
        byte[] payload =
                new byte[ModelExchangeCodec.CHUNK_FIXED_BYTES + prefix + indexBytes + n * dtype.bytesPerValue()];
        ByteBuffer b = ByteBuffer.wrap(payload);
        b.putInt(index).putInt(n);
        float scale = 0;
        if (dtype == Dtype.INT8) {
            scale = Quantization.int8Scale(values, from, n);
            b.putFloat(scale);
        }
        if (indices != null) {
            for (int i = 0; i < n; i++) {
                b.putInt(indices[from + i]);
            }
        }
        Quantization.encode(dtype, values, from, n, scale, payload, b.position());
        return ModelExchangeCodec.frame(FrameType.CHUNK, payload);
    }

    /**
     * SHA-256 of the decoded float32 values (little-endian), then of the explicit indices (u32 little-endian): the
     * digest a body header carries, and the one an announcement names.
     */
    public static byte[] digest(Dtype dtype, float[] values, int chunkValues, int[] indices) {
        MessageDigest md = ArchitectureHash.sha256();
        byte[] buf = new byte[4 * Math.min(chunkValues, values.length)];
        for (int from = 0; from < values.length; from += chunkValues) {
            int n = Math.min(chunkValues, values.length - from);
            float scale = dtype == Dtype.INT8 ? Quantization.int8Scale(values, from, n) : 0;
            for (int i = 0; i < n; i++) {
                float v = Quantization.roundTrip(dtype, values[from + i], scale);
                if (!Float.isFinite(v)) {
                    throw new IllegalArgumentException("value at " + (from + i) + " is " + v + "; refusing to send");
                }
                Quantization.putInt(buf, 4 * i, Float.floatToRawIntBits(v));
            }
            md.update(buf, 0, 4 * n);
        }
        if (indices != null) {
            updateIndices(md, indices);
        }
        return md.digest();
    }

    static void updateIndices(MessageDigest md, int[] indices) {
        byte[] b = new byte[4 * Math.min(indices.length, 4096)];
        for (int from = 0; from < indices.length; from += 4096) {
            int n = Math.min(4096, indices.length - from);
            for (int i = 0; i < n; i++) {
                Quantization.putInt(b, 4 * i, indices[from + i]);
            }
            md.update(b, 0, 4 * n);
        }
    }
}
