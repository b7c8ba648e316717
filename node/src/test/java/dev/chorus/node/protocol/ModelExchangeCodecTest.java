package dev.chorus.node.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.aggregation.ModelFragmentation;
import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.node.protocol.ModelExchangeCodec.BodyHeader;
import dev.chorus.node.protocol.ModelExchangeCodec.FrameHeader;
import dev.chorus.node.protocol.ModelExchangeCodec.Indexing;
import dev.chorus.testsupport.TestLog;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Bytes in, updates or error codes out: no sockets. */
class ModelExchangeCodecTest {

    private static final byte[] ARCH = ArchitectureHash.of("dense 4->1", 4, 2, 5000);
    private static final ExchangeLimits LIMITS = ExchangeLimits.defaults();

    private static float[] randomVector(long seed, int n) {
        SplittableRandom r = new SplittableRandom(seed);
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) (r.nextGaussian() * 0.5);
        }
        return v;
    }

    /** Encodes and returns every frame: header first, then chunks. */
    private static List<byte[]> encode(ModelUpdate u, Dtype dtype, int chunk, FragmentCatalog catalog) {
        ModelBodyEncoder e = new ModelBodyEncoder(ARCH, u, dtype, chunk, catalog);
        List<byte[]> frames = new ArrayList<>();
        frames.add(e.headerFrame());
        while (e.hasNextChunk()) {
            frames.add(e.nextChunkFrame());
        }
        return frames;
    }

    /** Decodes frames as the protocol does: header checked before payload, chunk length checked before reading. */
    private static ModelUpdate decode(List<byte[]> frames, byte[] arch, int dimension, FragmentCatalog catalog) {
        FrameHeader h = ModelExchangeCodec.parseHeader(Arrays.copyOf(frames.get(0), 8), LIMITS);
        BodyHeader header = ModelExchangeCodec.decodeBodyHeader(h.type(), payload(frames.get(0)), LIMITS);
        ModelBodyDecoder d = new ModelBodyDecoder(header, "peer", arch, dimension, catalog);
        for (int i = 1; i < frames.size(); i++) {
            FrameHeader ch = ModelExchangeCodec.parseHeader(Arrays.copyOf(frames.get(i), 8), LIMITS);
            assertThat(ch.type()).isEqualTo(FrameType.CHUNK);
            d.checkChunkLength(ch.length());
            d.accept(payload(frames.get(i)));
        }
        return d.finish();
    }

    private static byte[] payload(byte[] frame) {
        return Arrays.copyOfRange(frame, 8, frame.length);
    }

    private static void assertCode(Runnable r, ErrorCode code) {
        assertThatThrownBy(r::run)
                .isInstanceOf(ExchangeException.class)
                .satisfies(e -> assertThat(((ExchangeException) e).code()).isEqualTo(code));
    }

    @ParameterizedTest
    @EnumSource(Dtype.class)
    void wholeModelRoundTrip(Dtype dtype) {
        float[] v = randomVector(1, 5000);
        ModelUpdate sent = ModelUpdate.full("me", 17, 300, v);
        ModelUpdate got = decode(encode(sent, dtype, 1024, null), ARCH, 5000, null);
        assertThat(got.sender()).isEqualTo("peer");
        assertThat(got.version()).isEqualTo(17);
        assertThat(got.sampleCount()).isEqualTo(300);
        assertThat(got.isFragment()).isFalse();
        for (int i = 0; i < v.length; i++) {
            float scale = dtype == Dtype.INT8 ? chunkScale(v, i) : 0;
            assertThat(got.values()[i]).isEqualTo(Quantization.roundTrip(dtype, v[i], scale));
        }
        if (dtype == Dtype.F32) {
            assertThat(got.values()).containsExactly(v);
        }
        if (dtype == Dtype.INT8) {
            // the receiver learns each chunk's half-step, and every sent value lies within it of the decoded one
            assertThat(got.rounding().chunk()).isEqualTo(1024);
            assertThat(got.rounding().halfSteps()).hasSize(5);
            for (int i = 0; i < v.length; i++) {
                float h = got.rounding().halfSteps()[i / 1024];
                assertThat(h).isEqualTo(chunkScale(v, i) / 2);
                assertThat((double) Math.abs(v[i] - got.values()[i])).isLessThanOrEqualTo(h * (1 + 1e-6));
                // so the value nearest the sender's own among those that round alike is the sender's own
                assertThat(got.rounding().nearest(i, got.values()[i], v[i])).isEqualTo(v[i]);
            }
        } else {
            assertThat(got.rounding()).isNull();
        }
    }

    /** The int8 scale of the chunk of 1024 values that holds value {@code i} of 5000. */
    private static float chunkScale(float[] v, int i) {
        int from = i / 1024 * 1024;
        return Quantization.int8Scale(v, from, Math.min(1024, 5000 - from));
    }

    @Test
    void deltaContentSurvives() {
        ModelUpdate sent = ModelUpdate.delta("me", 3, 10, randomVector(2, 5000));
        ModelUpdate got = decode(encode(sent, Dtype.F32, 4096, null), ARCH, 5000, null);
        assertThat(got.content()).isEqualTo(ModelUpdate.Content.DELTA);
        assertThat(got.values()).containsExactly(sent.values());
    }

    @Test
    void seededFragmentTravelsByNumberNotIndices() {
        ModelFragmentation fr = new ModelFragmentation(5000, 10, 99L);
        FragmentCatalog catalog = new FragmentCatalog().register(fr);
        float[] v = randomVector(3, 5000);
        ModelUpdate sent = ModelUpdate.fragment("me", 5, 7, 5000, fr.indices(3), fr.gather(3, v));
        List<byte[]> frames = encode(sent, Dtype.F32, 256, catalog);
        assertThat(ByteBuffer.wrap(frames.get(0), 3, 1).get()).isEqualTo((byte) FrameType.FRAGMENT.code());
        long bodyBytes = frames.stream().skip(1).mapToLong(f -> f.length).sum();
        assertThat(bodyBytes).isLessThan(500L * 4 + 8L * 16 + 100); // no 4-byte index per value
        // a receiver that knows the fragmentation rebuilds the same indices
        FragmentCatalog receiver = new FragmentCatalog().register(new ModelFragmentation(5000, 10, 99L));
        ModelUpdate got = decode(frames, ARCH, 5000, receiver);
        assertThat(got.indices()).containsExactly(fr.indices(3));
        assertThat(got.values()).containsExactly(sent.values());
        // one that does not is refused: it never computes a permutation for a peer-chosen seed
        assertCode(() -> decode(frames, ARCH, 5000, new FragmentCatalog()), ErrorCode.UNEXPECTED);
        // nor is one that cuts the model otherwise, and the error says how each side cuts it
        FragmentCatalog whole = new FragmentCatalog().register(new ModelFragmentation(5000, 1, 99L));
        assertThatThrownBy(() -> decode(frames, ARCH, 5000, whole))
                .isInstanceOf(ExchangeException.class)
                .hasMessageContaining("fragment 3 of 10 with seed 99 of the 5000-parameter model")
                .hasMessageContaining("this node accepts 1 fragment with seed 99")
                .hasMessageContaining("averaging.fragments and training.seed");
    }

    /** An explicit fragment's name fields are 0; a header with a seed there is malformed, not read and ignored. */
    @Test
    void explicitFragmentWithANameIsMalformed() {
        ModelUpdate sent = ModelUpdate.fragment("me", 1, 1, 5000, new int[] {1, 3}, new float[] {1, 2});
        byte[] header = encode(sent, Dtype.F32, 2, null).get(0);
        byte[] payload = payload(header);
        assertThat(ModelExchangeCodec.decodeBodyHeader(FrameType.FRAGMENT, payload, LIMITS)
                        .coordinates()
                        .indexing())
                .isEqualTo(Indexing.EXPLICIT);
        payload[payload.length - 1] = 64; // the last byte of the fragmentation seed
        assertCode(() -> ModelExchangeCodec.decodeBodyHeader(FrameType.FRAGMENT, payload, LIMITS), ErrorCode.MALFORMED);
    }

    @Test
    void explicitIndicesFragment() {
        int[] idx = {4999, 0, 17, 2500};
        ModelUpdate sent = ModelUpdate.fragment("me", 1, 1, 5000, idx, new float[] {1, -2, 3.5f, 0});
        ModelUpdate got = decode(encode(sent, Dtype.BF16, 3, null), ARCH, 5000, null);
        assertThat(got.indices()).containsExactly(idx);
        assertThat(got.values()).containsExactly(1, -2, 3.5f, 0);
    }

    @Test
    void wrongArchitectureIsRefusedAtTheHeader() {
        List<byte[]> frames = encode(ModelUpdate.full("me", 1, 1, randomVector(4, 5000)), Dtype.F32, 1024, null);
        byte[] other = ArchitectureHash.of("dense 4->2", 4, 2, 5000);
        assertCode(() -> decode(frames, other, 5000, null), ErrorCode.WRONG_ARCHITECTURE);
        assertCode(() -> decode(frames, ARCH, 4999, null), ErrorCode.WRONG_ARCHITECTURE);
    }

    @ParameterizedTest
    @ValueSource(floats = {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY})
    void nonFiniteValuesAreRefused(float bad) {
        List<byte[]> frames = encode(ModelUpdate.full("me", 1, 1, randomVector(5, 5000)), Dtype.F32, 1024, null);
        byte[] chunk = frames.get(2);
        // value 10 of the second chunk: header 8 + index/count 8 + 4 * 10
        ByteBuffer.wrap(chunk).order(java.nio.ByteOrder.LITTLE_ENDIAN).putFloat(8 + 8 + 40, bad);
        assertCode(() -> decode(frames, ARCH, 5000, null), ErrorCode.INVALID_VALUES);
    }

    @Test
    void nonFiniteHalfAndInt8ScaleAreRefused() {
        List<byte[]> half = encode(ModelUpdate.full("me", 1, 1, randomVector(6, 5000)), Dtype.F16, 1024, null);
        half.get(1)[8 + 8] = 0x00;
        half.get(1)[8 + 9] = 0x7c; // +Inf in binary16
        assertCode(() -> decode(half, ARCH, 5000, null), ErrorCode.INVALID_VALUES);
        List<byte[]> int8 = encode(ModelUpdate.full("me", 1, 1, randomVector(7, 5000)), Dtype.INT8, 1024, null);
        ByteBuffer.wrap(int8.get(1)).putFloat(8 + 8, Float.NaN);
        assertCode(() -> decode(int8, ARCH, 5000, null), ErrorCode.INVALID_VALUES);
    }

    @Test
    void aBatchFrameCarriesItsBodyCountWithinItsBounds() {
        for (int n : new int[] {2, 3, 17, ModelExchangeCodec.MAX_BATCH_BODIES}) {
            byte[] f = ModelExchangeCodec.encodeBatch(n);
            FrameHeader h = ModelExchangeCodec.parseHeader(Arrays.copyOf(f, 8), LIMITS);
            assertThat(h.type()).isEqualTo(FrameType.BATCH);
            assertThat(h.length()).isEqualTo(ModelExchangeCodec.BATCH_BYTES);
            assertThat(ModelExchangeCodec.decodeBatch(payload(f))).isEqualTo(n);
        }
        assertCode(() -> ModelExchangeCodec.decodeBatch(new byte[] {0, 1}), ErrorCode.MALFORMED);
        assertCode(() -> ModelExchangeCodec.decodeBatch(new byte[] {0, 0}), ErrorCode.MALFORMED);
        assertCode(() -> ModelExchangeCodec.decodeBatch(new byte[] {0, 65}), ErrorCode.TOO_LARGE);
        assertCode(() -> ModelExchangeCodec.decodeBatch(new byte[] {(byte) 0xff, (byte) 0xff}), ErrorCode.TOO_LARGE);
        assertCode(() -> ModelExchangeCodec.decodeBatch(new byte[] {0, 2, 0}), ErrorCode.MALFORMED);
        // a BATCH header announcing any other length is refused before its payload is read
        byte[] wrong = ModelExchangeCodec.frame(FrameType.BATCH, new byte[3]);
        assertCode(() -> ModelExchangeCodec.parseHeader(Arrays.copyOf(wrong, 8), LIMITS), ErrorCode.TOO_LARGE);
        byte[] shorter = ModelExchangeCodec.frame(FrameType.BATCH, new byte[1]);
        assertCode(() -> ModelExchangeCodec.parseHeader(Arrays.copyOf(shorter, 8), LIMITS), ErrorCode.MALFORMED);
        assertThatThrownBy(() -> ModelExchangeCodec.encodeBatch(1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void tamperedValueFailsTheDigest() {
        List<byte[]> frames = encode(ModelUpdate.full("me", 1, 1, randomVector(8, 5000)), Dtype.F32, 1024, null);
        frames.get(3)[100] ^= 0x01; // still finite, but not what was hashed
        assertCode(() -> decode(frames, ARCH, 5000, null), ErrorCode.DIGEST_MISMATCH);
    }

    @Test
    void truncatedBodyIsRefused() {
        List<byte[]> frames = encode(ModelUpdate.full("me", 1, 1, randomVector(9, 5000)), Dtype.F32, 1024, null);
        assertCode(() -> decode(frames.subList(0, frames.size() - 1), ARCH, 5000, null), ErrorCode.MALFORMED);
    }

    @Test
    void bodyLargerThanAnnouncedIsRefused() {
        List<byte[]> frames =
                new ArrayList<>(encode(ModelUpdate.full("me", 1, 1, randomVector(10, 5000)), Dtype.F32, 1024, null));
        frames.add(frames.get(1)); // one chunk more than announced
        assertCode(() -> decode(frames, ARCH, 5000, null), ErrorCode.TOO_LARGE);
        // a chunk frame announcing more bytes than the chunk may hold is refused before its payload is read
        List<byte[]> big = encode(ModelUpdate.full("me", 1, 1, randomVector(11, 5000)), Dtype.F32, 1024, null);
        BodyHeader header = ModelExchangeCodec.decodeBodyHeader(FrameType.PARAMS, payload(big.get(0)), LIMITS);
        ModelBodyDecoder d = new ModelBodyDecoder(header, "peer", ARCH, 5000, null);
        assertCode(() -> d.checkChunkLength(8 + 1025 * 4), ErrorCode.TOO_LARGE);
    }

    @Test
    void chunksFramedAheadOfTheirDecodingDecodeAsIfReadOneByOne() {
        ModelUpdate sent = ModelUpdate.full("me", 4, 9, randomVector(12, 5000));
        List<byte[]> frames = encode(sent, Dtype.F32, 1024, null); // chunks of 1024 values: the last of 904
        BodyHeader header = ModelExchangeCodec.decodeBodyHeader(FrameType.PARAMS, payload(frames.get(0)), LIMITS);
        ModelBodyDecoder d = new ModelBodyDecoder(header, "peer", ARCH, 5000, null);
        for (int i = 1; i < frames.size(); i++) {
            assertThat(d.isFramed()).isFalse();
            d.frame(ModelExchangeCodec.parseHeader(Arrays.copyOf(frames.get(i), 8), LIMITS)
                    .length());
        }
        assertThat(d.isFramed()).isTrue();
        assertThat(d.isComplete()).as("framed, not yet decoded").isFalse();
        // A chunk past the framed body is refused as the reader would meet it.
        assertCode(() -> d.frame(8 + 4), ErrorCode.TOO_LARGE);
        for (int i = 1; i < frames.size(); i++) {
            d.accept(payload(frames.get(i)));
        }
        assertThat(d.finish().values()).isEqualTo(sent.values());

        // A wrong length names the framed chunk, not the decoded one.
        ModelBodyDecoder ahead = new ModelBodyDecoder(header, "peer", ARCH, 5000, null);
        ahead.frame(8 + 1024 * 4);
        ahead.frame(8 + 1024 * 4);
        assertThatThrownBy(() -> ahead.frame(8 + 1023 * 4))
                .isInstanceOf(ExchangeException.class)
                .hasMessageContaining("chunk 2 of");
    }

    @Test
    void headerBoundsAreChecked() {
        ModelUpdate u = ModelUpdate.full("me", 1, 1, randomVector(12, 5000));
        byte[] header = encode(u, Dtype.F32, 1024, null).get(0);
        ExchangeLimits small = LIMITS.withMaxParameters(4000);
        assertCode(
                () -> ModelExchangeCodec.decodeBodyHeader(FrameType.PARAMS, payload(header), small),
                ErrorCode.TOO_LARGE);
        ExchangeLimits smallChunks = LIMITS.withMaxChunkValues(512);
        assertCode(
                () -> ModelExchangeCodec.decodeBodyHeader(FrameType.PARAMS, payload(header), smallChunks),
                ErrorCode.TOO_LARGE);
        byte[] negative = payload(header);
        negative[32] = (byte) 0x80; // version's sign bit
        assertCode(() -> ModelExchangeCodec.decodeBodyHeader(FrameType.PARAMS, negative, LIMITS), ErrorCode.MALFORMED);
    }

    @Test
    void frameHeaderGarbage() {
        byte[] ok = ModelExchangeCodec.encodeAck();
        assertThat(ModelExchangeCodec.parseHeader(Arrays.copyOf(ok, 8), LIMITS))
                .isEqualTo(new FrameHeader(FrameType.ACK, 1));
        byte[] magic = Arrays.copyOf(ok, 8);
        magic[0] = 'G';
        assertCode(() -> ModelExchangeCodec.parseHeader(magic, LIMITS), ErrorCode.MALFORMED);
        byte[] version = Arrays.copyOf(ok, 8);
        version[2] = 2;
        assertCode(() -> ModelExchangeCodec.parseHeader(version, LIMITS), ErrorCode.UNSUPPORTED_VERSION);
        byte[] type = Arrays.copyOf(ok, 8);
        type[3] = 99;
        assertCode(() -> ModelExchangeCodec.parseHeader(type, LIMITS), ErrorCode.MALFORMED);
        byte[] huge = ModelExchangeCodec.frame(FrameType.CHUNK, new byte[0]);
        ByteBuffer.wrap(huge).putInt(4, 0x7fffffff);
        assertCode(() -> ModelExchangeCodec.parseHeader(huge, LIMITS), ErrorCode.TOO_LARGE);
        byte[] shortPull = ModelExchangeCodec.frame(FrameType.PULL, new byte[10]);
        assertCode(() -> ModelExchangeCodec.parseHeader(Arrays.copyOf(shortPull, 8), LIMITS), ErrorCode.MALFORMED);
    }

    @Test
    void randomBytesOnlyEverGiveExchangeExceptions() {
        long seed = 20240601L;
        TestLog.figures("seed " + seed);
        SplittableRandom r = new SplittableRandom(seed);
        for (int trial = 0; trial < 2000; trial++) {
            byte[] garbage = new byte[8 + r.nextInt(200)];
            r.nextBytes(garbage);
            if (r.nextBoolean()) { // a valid prefix, so the payload decoders are reached too
                garbage[0] = 0x43;
                garbage[1] = 0x58;
                garbage[2] = 1;
                garbage[3] = (byte) (1 + r.nextInt(7));
            }
            try {
                FrameHeader h = ModelExchangeCodec.parseHeader(Arrays.copyOf(garbage, 8), LIMITS);
                byte[] p = Arrays.copyOfRange(garbage, 8, garbage.length);
                switch (h.type()) {
                    case PULL -> ModelExchangeCodec.decodePull(p);
                    case PARAMS, FRAGMENT ->
                        new ModelBodyDecoder(
                                ModelExchangeCodec.decodeBodyHeader(h.type(), p, LIMITS), "x", ARCH, 5000, null);
                    case ERROR -> ModelExchangeCodec.decodeError(p);
                    case BATCH -> ModelExchangeCodec.decodeBatch(p);
                    default -> {}
                }
            } catch (ExchangeException expected) {
                // refused with a code: fine
            }
        }
    }

    @Test
    void errorFrameRoundTripSanitizesAndBoundsTheReason() {
        byte[] f = ModelExchangeCodec.encodeError(ErrorCode.WRONG_ARCHITECTURE, "bad\nline" + "x".repeat(1000));
        FrameHeader h = ModelExchangeCodec.parseHeader(Arrays.copyOf(f, 8), LIMITS);
        assertThat(h.type()).isEqualTo(FrameType.ERROR);
        var e = ModelExchangeCodec.decodeError(payload(f));
        assertThat(e.code()).isEqualTo(ErrorCode.WRONG_ARCHITECTURE);
        assertThat(e.reason()).startsWith("bad?line").hasSize(ModelExchangeCodec.MAX_REASON_BYTES);
    }

    @Test
    void pullRoundTrip() {
        byte[] f = ModelExchangeCodec.encodePull(new ModelExchangeCodec.Pull(ARCH, 42, Dtype.BF16, true));
        var p = ModelExchangeCodec.decodePull(payload(f));
        assertThat(p.architecture()).isEqualTo(ARCH);
        assertThat(p.version()).isEqualTo(42);
        assertThat(p.replyDtype()).isEqualTo(Dtype.BF16);
        assertThat(p.offerFollows()).isTrue();
    }

    @Test
    void encoderNeverSendsNonFiniteValues() {
        float[] v = randomVector(13, 5000);
        ModelUpdate ok = ModelUpdate.full("me", 1, 1, v);
        v[7] = Float.NaN; // changed after validation, against the contract: the encoder still catches it
        assertThatThrownBy(() -> new ModelBodyEncoder(ARCH, ok, Dtype.F32, 1024, null))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
