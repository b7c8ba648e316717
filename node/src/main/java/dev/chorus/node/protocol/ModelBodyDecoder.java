package dev.chorus.node.protocol;

import dev.chorus.aggregation.InvalidUpdateException;
import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.node.protocol.ModelExchangeCodec.BodyHeader;
import dev.chorus.node.protocol.ModelExchangeCodec.Indexing;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.Arrays;

/**
 * Receives one body, chunk by chunk, for a local model of a known architecture. The header is checked before any
 * chunk is read: a different architecture hash or parameter count is refused with
 * {@link ErrorCode#WRONG_ARCHITECTURE}. The length of each chunk is known in advance
 * ({@link #expectedChunkBytes()}), so a frame header announcing anything else is refused before its payload is
 * read; a chunk after the last announced one is {@link ErrorCode#TOO_LARGE}. NaN or infinite values are
 * {@link ErrorCode#INVALID_VALUES}, a digest that does not match is {@link ErrorCode#DIGEST_MISMATCH}. Only a
 * body that passed every check becomes a {@link ModelUpdate}.
 */
public final class ModelBodyDecoder {

    private final BodyHeader header;
    private final String sender;
    /** The values the body announces. */
    private final int count;
    /** A seeded fragment's coordinates, from the catalog; null otherwise. */
    private final int[] seededIndices;
    // Made at the first chunk, on the thread that decodes (a codec thread), not on the one that reads the stream.
    private float[] values;
    private int[] indices;
    /** Half of each int8 chunk's scale: how far each decoded value may lie from the sender's; null for other dtypes. */
    private float[] halfSteps;

    private MessageDigest digest;
    private byte[] digestBuffer;
    private int received;
    private int nextChunk;
    /** Values whose CHUNK frames the reader has taken off the stream, decoded or not yet (at least {@code received}). */
    private int framed;

    private int framedChunks;

    /**
     * @param header the decoded (and bounded) body header
     * @param sender the authenticated peer the body came from
     * @param architecture the local architecture hash
     * @param dimension the local parameter count
     * @param catalog the fragmentations this node accepts by name; may be null
     */
    public ModelBodyDecoder(
            BodyHeader header, String sender, byte[] architecture, int dimension, FragmentCatalog catalog) {
        this.header = header;
        this.sender = sender;
        if (!MessageDigest.isEqual(header.model().architecture(), architecture)) {
            throw new ExchangeException(
                    ErrorCode.WRONG_ARCHITECTURE, "architecture hash differs from the local model's");
        }
        if (header.model().dimension() != dimension) {
            throw new ExchangeException(
                    ErrorCode.WRONG_ARCHITECTURE,
                    header.model().dimension() + " parameters announced, the local model has " + dimension);
        }
        int[] idx = null;
        if (header.coordinates().indexing() == Indexing.SEEDED) {
            idx = catalog == null
                    ? null
                    : catalog.indicesOf(header.coordinates().fragment(), dimension);
            if (idx == null) {
                FragmentCatalog.FragmentName name = header.coordinates().fragment();
                throw new ExchangeException(
                        ErrorCode.UNEXPECTED,
                        "fragment " + name.number() + " of " + name.fragments() + " with seed " + name.seed()
                                + " of the " + dimension + "-parameter model; this node accepts "
                                + (catalog == null ? "no fragmentation" : catalog.describe(dimension))
                                + " (every node must cut the model alike: the same averaging.fragments"
                                + " and training.seed)");
            }
            if (idx.length != header.encoding().valueCount()) {
                throw new ExchangeException(
                        ErrorCode.MALFORMED,
                        "fragment has " + idx.length + " coordinates, "
                                + header.encoding().valueCount() + " announced");
            }
        }
        this.seededIndices = idx;
        this.count = header.encoding().valueCount();
    }

    /** The body's buffers and digest, made once, by the thread that decodes the first chunk. */
    private void buffers() {
        if (values != null) {
            return;
        }
        values = new float[count];
        if (header.encoding().dtype() == Dtype.INT8) {
            int chunk = header.encoding().chunkValues();
            halfSteps = new float[(int) ((count + (long) chunk - 1) / chunk)];
        }
        indices = header.coordinates().indexing() == Indexing.EXPLICIT ? new int[count] : seededIndices;
        digest = ArchitectureHash.sha256();
        digestBuffer = new byte[4 * Math.min(header.encoding().chunkValues(), count)];
    }

    public BodyHeader header() {
        return header;
    }

    public boolean isComplete() {
        return received == count;
    }

    /** The exact payload length of the next CHUNK frame, or -1 when the body is complete. */
    public int expectedChunkBytes() {
        return expectedChunkBytes(received);
    }

    /** The exact payload length of the CHUNK frame that starts at value {@code at}, or -1 past the body's end. */
    private int expectedChunkBytes(int at) {
        if (at == count) {
            return -1;
        }
        int n = Math.min(header.encoding().chunkValues(), count - at);
        return ModelExchangeCodec.CHUNK_FIXED_BYTES
                + header.encoding().dtype().chunkPrefixBytes()
                + (header.coordinates().indexing() == Indexing.EXPLICIT ? 4 * n : 0)
                + n * header.encoding().dtype().bytesPerValue();
    }

    /**
     * Takes note of the next CHUNK frame's announced length, before its payload is read and before the chunks before
     * it are decoded, so that a reader can take several chunks off the stream and hand them to {@link #accept} in one
     * go; refuses a length that is not the next chunk's, as {@link #checkChunkLength} does.
     */
    public void frame(int length) {
        checkLength(expectedChunkBytes(framed), length, framedChunks);
        framed += Math.min(header.encoding().chunkValues(), count - framed);
        framedChunks++;
    }

    /** Whether every chunk of the body has been framed ({@link #frame}). */
    public boolean isFramed() {
        return framed == count;
    }

    /** Checks a CHUNK frame's announced length before its payload is read. */
    public void checkChunkLength(int length) {
        checkLength(expectedChunkBytes(), length, nextChunk);
    }

    private void checkLength(int expected, int length, int chunk) {
        if (expected < 0) {
            throw new ExchangeException(ErrorCode.TOO_LARGE, "body is longer than the " + count + " values announced");
        }
        if (length > expected) {
            throw new ExchangeException(
                    ErrorCode.TOO_LARGE, "chunk " + chunk + " of " + length + " bytes, " + expected + " expected");
        }
        if (length < expected) {
            throw new ExchangeException(
                    ErrorCode.MALFORMED, "chunk " + chunk + " of " + length + " bytes, " + expected + " expected");
        }
    }

    /** Takes the payload of the next CHUNK frame. */
    public void accept(byte[] payload) {
        checkChunkLength(payload.length);
        buffers();
        ByteBuffer b = ByteBuffer.wrap(payload);
        int index = b.getInt();
        int n = b.getInt();
        int expectedN = Math.min(header.encoding().chunkValues(), count - received);
        if (index != nextChunk || n != expectedN) {
            throw new ExchangeException(
                    ErrorCode.MALFORMED,
                    "chunk " + index + " with " + n + " values, expected chunk " + nextChunk + " with " + expectedN);
        }
        float scale = 0;
        if (header.encoding().dtype() == Dtype.INT8) {
            scale = b.getFloat();
            if (!Float.isFinite(scale) || scale < 0) {
                throw new ExchangeException(ErrorCode.INVALID_VALUES, "int8 scale " + scale + " in chunk " + index);
            }
            halfSteps[index] = scale / 2;
        }
        if (header.coordinates().indexing() == Indexing.EXPLICIT) {
            for (int i = 0; i < n; i++) {
                int c = b.getInt();
                if (c < 0 || c >= header.model().dimension()) {
                    throw new ExchangeException(
                            ErrorCode.MALFORMED, "coordinate " + (c & 0xffffffffL) + " outside the model");
                }
                indices[received + i] = c;
            }
        }
        int bad = Quantization.decode(header.encoding().dtype(), payload, b.position(), n, scale, values, received);
        if (bad >= 0) {
            throw new ExchangeException(
                    ErrorCode.INVALID_VALUES, "value " + (received + bad) + " is " + values[received + bad]);
        }
        for (int i = 0; i < n; i++) {
            Quantization.putInt(digestBuffer, 4 * i, Float.floatToRawIntBits(values[received + i]));
        }
        digest.update(digestBuffer, 0, 4 * n);
        received += n;
        nextChunk++;
    }

    /** The received update, after the digest check. */
    public ModelUpdate finish() {
        if (!isComplete()) {
            throw new ExchangeException(
                    ErrorCode.MALFORMED, "body ended after " + received + " of " + count + " values");
        }
        buffers();
        if (header.coordinates().indexing() == Indexing.EXPLICIT) {
            ModelBodyEncoder.updateIndices(digest, indices);
        }
        byte[] actual = digest.digest();
        if (!MessageDigest.isEqual(actual, header.digest())) {
            Arrays.fill(values, 0);
            throw new ExchangeException(ErrorCode.DIGEST_MISMATCH, "SHA-256 of the decoded values does not match");
        }
        try {
            return new ModelUpdate(
                    sender,
                    header.model().version(),
                    header.model().sampleCount(),
                    header.content(),
                    header.model().dimension(),
                    header.coordinates().indexing() == Indexing.NONE ? null : indices,
                    values,
                    halfSteps == null
                            ? null
                            : new ModelUpdate.Rounding(header.encoding().chunkValues(), halfSteps));
        } catch (InvalidUpdateException e) {
            throw new ExchangeException(ErrorCode.MALFORMED, e.getMessage());
        }
    }
}
