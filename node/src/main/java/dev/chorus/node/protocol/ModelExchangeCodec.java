package dev.chorus.node.protocol;

import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.node.protocol.FragmentCatalog.FragmentName;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Frames of {@code /chorus/model/1.0.0} (layouts in {@code docs/protocol.md}). Every frame starts with an 8-byte
 * header: magic {@code "CX"}, protocol version, frame type, payload length (u32, big-endian). The header is checked
 * against the limits before any payload byte is read, so a peer cannot make this node buffer more than a limit.
 * Integer fields are big-endian; parameter values are little-endian.
 */
public final class ModelExchangeCodec {

    /** {@code "CX"}. */
    public static final int MAGIC = 0x4358;

    public static final int VERSION = 1;
    public static final int HEADER_BYTES = 8;
    public static final int PULL_BYTES = 42;
    public static final int PARAMS_BYTES = 94;
    public static final int FRAGMENT_BYTES = 111;
    public static final int ACK_BYTES = 1;
    public static final int BATCH_BYTES = 2;

    /**
     * The most bodies one BATCH announces. A batch carries a round's fragments for one peer (a few to a few dozen);
     * the bound keeps what one stream asks of the responder's queue in proportion to it.
     */
    public static final int MAX_BATCH_BODIES = 64;

    public static final int MAX_REASON_BYTES = 256;
    public static final int CHUNK_FIXED_BYTES = 8;

    private ModelExchangeCodec() {}

    /** A parsed frame header. */
    public record FrameHeader(FrameType type, int length) {}

    /** A frame: its type and payload. */
    public record Frame(FrameType type, byte[] payload) {}

    /** How a body names the coordinates it carries. */
    public enum Indexing {
        /** The whole vector, in order (PARAMS). */
        NONE(0),
        /** A fragment of a registered seeded fragmentation, named by count, seed and number. */
        SEEDED(1),
        /** Explicit u32 coordinates in each chunk, in front of the values. */
        EXPLICIT(2);

        final int code;

        Indexing(int code) {
            this.code = code;
        }
    }

    /**
     * A PULL request.
     *
     * @param architecture the requester's architecture hash
     * @param version the requester's model version
     * @param replyDtype the encoding the requester asks for
     * @param offerFollows whether the requester's own model follows as a PARAMS body (push-pull)
     */
    public record Pull(byte[] architecture, long version, Dtype replyDtype, boolean offerFollows) {
        public Pull {
            requireHash(architecture, "architecture");
            Objects.requireNonNull(replyDtype, "replyDtype");
        }
    }

    /**
     * The header of a body (PARAMS or FRAGMENT frame), in the parts of its layout.
     *
     * @param model the sender's model the values come from
     * @param content parameters or a delta
     * @param encoding how the values travel
     * @param digest SHA-256 of the decoded float32 values (little-endian), then of the explicit indices if any
     * @param coordinates which coordinates the values are (FRAGMENT) or all of them (PARAMS)
     */
    public record BodyHeader(
            Model model, ModelUpdate.Content content, Encoding encoding, byte[] digest, Coordinates coordinates) {

        public BodyHeader {
            Objects.requireNonNull(model, "model");
            Objects.requireNonNull(content, "content");
            Objects.requireNonNull(encoding, "encoding");
            requireHash(digest, "digest");
            Objects.requireNonNull(coordinates, "coordinates");
        }

        public FrameType frameType() {
            return coordinates.indexing() == Indexing.NONE ? FrameType.PARAMS : FrameType.FRAGMENT;
        }

        public int chunkCount() {
            return encoding.chunkCount();
        }

        /**
         * The sender's model.
         *
         * @param architecture its architecture hash
         * @param dimension its parameter count
         * @param version its version
         * @param sampleCount its node's training examples
         */
        public record Model(byte[] architecture, int dimension, long version, long sampleCount) {
            public Model {
                requireHash(architecture, "architecture");
            }
        }

        /**
         * How the values travel.
         *
         * @param dtype the encoding of the chunks
         * @param valueCount the values the body carries (the model's dimension for PARAMS)
         * @param chunkValues values per chunk (the last chunk may hold fewer)
         */
        public record Encoding(Dtype dtype, int valueCount, int chunkValues) {
            public Encoding {
                Objects.requireNonNull(dtype, "dtype");
            }

            public int chunkCount() {
                return (int) (((long) valueCount + chunkValues - 1) / chunkValues);
            }
        }

        /**
         * Which coordinates the values are.
         *
         * @param indexing how coordinates are named
         * @param fragment the fragment's name when {@code indexing} is SEEDED, else null
         */
        public record Coordinates(Indexing indexing, FragmentName fragment) {
            public Coordinates {
                Objects.requireNonNull(indexing, "indexing");
                if ((indexing == Indexing.SEEDED) != (fragment != null)) {
                    throw new IllegalArgumentException("a fragment name goes with seeded indexing only");
                }
            }
        }
    }

    /** An ERROR frame's content. */
    public record ErrorFrame(ErrorCode code, String reason) {}

    // ------------------------------------------------------------------ frame header

    /** A frame: header and payload in one array. */
    public static byte[] frame(FrameType type, byte[] payload) {
        byte[] out = new byte[HEADER_BYTES + payload.length];
        ByteBuffer.wrap(out)
                .putShort((short) MAGIC)
                .put((byte) VERSION)
                .put((byte) type.code())
                .putInt(payload.length)
                .put(payload);
        return out;
    }

    /**
     * Parses and bounds a frame header: the magic, the version, a known type, and a length that fits the type (fixed
     * for PULL, PARAMS, FRAGMENT, ACK, BATCH; at most {@code 4 + 256} for ERROR; at most
     * {@link ExchangeLimits#maxChunkFrameBytes()} for CHUNK).
     */
    public static FrameHeader parseHeader(byte[] header, ExchangeLimits limits) {
        if (header.length != HEADER_BYTES) {
            throw new ExchangeException(ErrorCode.MALFORMED, "frame header of " + header.length + " bytes");
        }
        ByteBuffer b = ByteBuffer.wrap(header);
        int magic = b.getShort() & 0xffff;
        if (magic != MAGIC) {
            throw new ExchangeException(ErrorCode.MALFORMED, String.format("bad magic 0x%04x", magic));
        }
        int version = b.get() & 0xff;
        if (version != VERSION) {
            throw new ExchangeException(ErrorCode.UNSUPPORTED_VERSION, "protocol version " + version);
        }
        FrameType type = FrameType.fromCode(b.get() & 0xff);
        long length = b.getInt() & 0xffffffffL;
        long max =
                switch (type) {
                    case PULL -> PULL_BYTES;
                    case PARAMS -> PARAMS_BYTES;
                    case FRAGMENT -> FRAGMENT_BYTES;
                    case ACK -> ACK_BYTES;
                    case BATCH -> BATCH_BYTES;
                    case ERROR -> 4 + MAX_REASON_BYTES;
                    case CHUNK -> limits.maxChunkFrameBytes();
                };
        if (length > max) {
            throw new ExchangeException(
                    ErrorCode.TOO_LARGE, type + " frame of " + length + " bytes, at most " + max + " allowed");
        }
        boolean fixed = type != FrameType.ERROR && type != FrameType.CHUNK;
        if ((fixed && length != max)
                || (type == FrameType.ERROR && length < 4)
                || (type == FrameType.CHUNK && length < CHUNK_FIXED_BYTES)) {
            throw new ExchangeException(ErrorCode.MALFORMED, type + " frame of " + length + " bytes");
        }
        return new FrameHeader(type, (int) length);
    }

    // ------------------------------------------------------------------ PULL

    public static byte[] encodePull(Pull pull) {
        ByteBuffer b = ByteBuffer.allocate(PULL_BYTES);
        b.put(pull.architecture())
                .putLong(pull.version())
                .put((byte) pull.replyDtype().code())
                .put((byte) (pull.offerFollows() ? 1 : 0));
        return frame(FrameType.PULL, b.array());
    }

    public static Pull decodePull(byte[] payload) {
        requireLength(payload, PULL_BYTES, FrameType.PULL);
        ByteBuffer b = ByteBuffer.wrap(payload);
        byte[] arch = new byte[ArchitectureHash.BYTES];
        b.get(arch);
        long version = b.getLong();
        if (version < 0) {
            throw new ExchangeException(ErrorCode.MALFORMED, "negative version in PULL");
        }
        Dtype dtype = Dtype.fromCode(b.get() & 0xff);
        int flags = b.get() & 0xff;
        if ((flags & ~1) != 0) {
            throw new ExchangeException(ErrorCode.MALFORMED, "unknown PULL flags " + flags);
        }
        return new Pull(arch, version, dtype, flags == 1);
    }

    // ------------------------------------------------------------------ PARAMS / FRAGMENT

    public static byte[] encodeBodyHeader(BodyHeader h) {
        BodyHeader.Model model = h.model();
        BodyHeader.Encoding encoding = h.encoding();
        boolean fragment = h.coordinates().indexing() != Indexing.NONE;
        ByteBuffer b = ByteBuffer.allocate(fragment ? FRAGMENT_BYTES : PARAMS_BYTES);
        b.put(model.architecture())
                .putLong(model.version())
                .putLong(model.sampleCount())
                .put((byte) h.content().ordinal())
                .put((byte) encoding.dtype().code())
                .putInt(model.dimension())
                .putInt(encoding.valueCount())
                .putInt(encoding.chunkValues())
                .put(h.digest());
        if (fragment) {
            b.put((byte) h.coordinates().indexing().code);
            FragmentName name = h.coordinates().fragment();
            b.putInt(name == null ? 0 : name.fragments())
                    .putInt(name == null ? 0 : name.number())
                    .putLong(name == null ? 0 : name.seed());
        }
        return frame(h.frameType(), b.array());
    }

    /**
     * Decodes and bounds a body header: known codes, non-negative version and sample count, a dimension within
     * {@link ExchangeLimits#maxParameters()}, a chunk size within {@link ExchangeLimits#maxChunkValues()}, a value
     * count in {@code [1, dimension]} (exactly {@code dimension} for PARAMS).
     */
    public static BodyHeader decodeBodyHeader(FrameType type, byte[] payload, ExchangeLimits limits) {
        if (type != FrameType.PARAMS && type != FrameType.FRAGMENT) {
            throw new ExchangeException(ErrorCode.MALFORMED, "expected PARAMS or FRAGMENT, got " + type);
        }
        requireLength(payload, type == FrameType.PARAMS ? PARAMS_BYTES : FRAGMENT_BYTES, type);
        ByteBuffer b = ByteBuffer.wrap(payload);
        byte[] arch = new byte[ArchitectureHash.BYTES];
        b.get(arch);
        long version = b.getLong();
        long samples = b.getLong();
        if (version < 0 || samples < 0) {
            throw new ExchangeException(ErrorCode.MALFORMED, "negative version or sample count");
        }
        int contentCode = b.get() & 0xff;
        if (contentCode >= ModelUpdate.Content.values().length) {
            throw new ExchangeException(ErrorCode.MALFORMED, "unknown content " + contentCode);
        }
        ModelUpdate.Content content = ModelUpdate.Content.values()[contentCode];
        Dtype dtype = Dtype.fromCode(b.get() & 0xff);
        long dimension = b.getInt() & 0xffffffffL;
        long valueCount = b.getInt() & 0xffffffffL;
        long chunkValues = b.getInt() & 0xffffffffL;
        byte[] digest = new byte[32];
        b.get(digest);
        if (dimension == 0 || valueCount == 0 || chunkValues == 0) {
            throw new ExchangeException(ErrorCode.MALFORMED, "empty body header");
        }
        if (dimension > limits.maxParameters()) {
            throw new ExchangeException(
                    ErrorCode.TOO_LARGE,
                    dimension + " parameters announced, at most " + limits.maxParameters() + " accepted");
        }
        if (chunkValues > limits.maxChunkValues()) {
            throw new ExchangeException(
                    ErrorCode.TOO_LARGE,
                    "chunks of " + chunkValues + " values announced, at most " + limits.maxChunkValues() + " accepted");
        }
        if (valueCount > dimension || (type == FrameType.PARAMS && valueCount != dimension)) {
            throw new ExchangeException(
                    ErrorCode.MALFORMED, valueCount + " values announced for a model of " + dimension);
        }
        Indexing indexing = Indexing.NONE;
        FragmentName name = null;
        if (type == FrameType.FRAGMENT) {
            int code = b.get() & 0xff;
            long fragments = b.getInt() & 0xffffffffL;
            long number = b.getInt() & 0xffffffffL;
            long seed = b.getLong();
            if (code == Indexing.SEEDED.code) {
                if (fragments == 0 || fragments > dimension || number >= fragments) {
                    throw new ExchangeException(
                            ErrorCode.MALFORMED, "fragment " + number + " of " + fragments + " for " + dimension);
                }
                indexing = Indexing.SEEDED;
                name = new FragmentName((int) fragments, seed, (int) number);
            } else if (code == Indexing.EXPLICIT.code) {
                // The name fields are zero for explicit indexing (docs/protocol.md); a frame with anything else there
                // would be accepted in a form no sender writes, and re-encode to different bytes.
                if (fragments != 0 || number != 0 || seed != 0) {
                    throw new ExchangeException(
                            ErrorCode.MALFORMED,
                            "explicit fragment with a fragment name (" + number + " of " + fragments + ", seed " + seed
                                    + "); its name fields must be 0");
                }
                indexing = Indexing.EXPLICIT;
            } else {
                throw new ExchangeException(ErrorCode.MALFORMED, "unknown fragment indexing " + code);
            }
        }
        return new BodyHeader(
                new BodyHeader.Model(arch, (int) dimension, version, samples),
                content,
                new BodyHeader.Encoding(dtype, (int) valueCount, (int) chunkValues),
                digest,
                new BodyHeader.Coordinates(indexing, name));
    }

    // ------------------------------------------------------------------ BATCH

    /** A BATCH frame announcing {@code count} bodies (2 to {@value #MAX_BATCH_BODIES}). */
    public static byte[] encodeBatch(int count) {
        if (count < 2 || count > MAX_BATCH_BODIES) {
            throw new IllegalArgumentException("a batch holds 2 to " + MAX_BATCH_BODIES + " bodies, not " + count);
        }
        return frame(
                FrameType.BATCH,
                ByteBuffer.allocate(BATCH_BYTES).putShort((short) count).array());
    }

    /** The body count of a BATCH payload: 2 to {@value #MAX_BATCH_BODIES}, else MALFORMED or TOO_LARGE. */
    public static int decodeBatch(byte[] payload) {
        requireLength(payload, BATCH_BYTES, FrameType.BATCH);
        int count = ByteBuffer.wrap(payload).getShort() & 0xffff;
        if (count > MAX_BATCH_BODIES) {
            throw new ExchangeException(
                    ErrorCode.TOO_LARGE, "a batch of " + count + " bodies, at most " + MAX_BATCH_BODIES + " allowed");
        }
        if (count < 2) {
            throw new ExchangeException(ErrorCode.MALFORMED, "a batch of " + count + " bodies (2 or more)");
        }
        return count;
    }

    // ------------------------------------------------------------------ ACK / ERROR

    /** An ACK: the pushed body was taken (queued for the next step boundary). */
    public static byte[] encodeAck() {
        return frame(FrameType.ACK, new byte[] {0});
    }

    public static byte[] encodeError(ErrorCode code, String reason) {
        byte[] text = truncateUtf8(reason == null ? "" : reason, MAX_REASON_BYTES);
        ByteBuffer b = ByteBuffer.allocate(4 + text.length);
        b.putShort((short) code.code()).putShort((short) text.length).put(text);
        return frame(FrameType.ERROR, b.array());
    }

    public static ErrorFrame decodeError(byte[] payload) {
        if (payload.length < 4) {
            throw new ExchangeException(ErrorCode.MALFORMED, "ERROR frame of " + payload.length + " bytes");
        }
        ByteBuffer b = ByteBuffer.wrap(payload);
        ErrorCode code = ErrorCode.fromCode(b.getShort() & 0xffff);
        int n = b.getShort() & 0xffff;
        if (n != payload.length - 4) {
            throw new ExchangeException(ErrorCode.MALFORMED, "ERROR reason of " + n + " bytes in " + payload.length);
        }
        String reason = new String(payload, 4, n, StandardCharsets.UTF_8);
        return new ErrorFrame(code, sanitize(reason));
    }

    /** The reason with control characters replaced, so a peer's text cannot forge log lines. */
    static String sanitize(String s) {
        StringBuilder out = new StringBuilder(s.length());
        s.codePoints().forEach(c -> out.appendCodePoint(Character.isISOControl(c) ? '?' : c));
        return out.toString();
    }

    private static byte[] truncateUtf8(String s, int max) {
        byte[] all = s.getBytes(StandardCharsets.UTF_8);
        if (all.length <= max) {
            return all;
        }
        int end = max;
        while (end > 0 && (all[end] & 0xc0) == 0x80) {
            end--; // do not cut a multi-byte character
        }
        byte[] out = new byte[end];
        System.arraycopy(all, 0, out, 0, end);
        return out;
    }

    private static void requireLength(byte[] payload, int expected, FrameType type) {
        if (payload.length != expected) {
            throw new ExchangeException(ErrorCode.MALFORMED, type + " payload of " + payload.length + " bytes");
        }
    }

    private static void requireHash(byte[] hash, String what) {
        if (hash == null || hash.length != 32) {
            throw new IllegalArgumentException(what + " must be 32 bytes");
        }
    }
}
