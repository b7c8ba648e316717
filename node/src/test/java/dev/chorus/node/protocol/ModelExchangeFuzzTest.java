package dev.chorus.node.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.node.protocol.ModelExchangeCodec.BodyHeader;
import dev.chorus.node.protocol.ModelExchangeCodec.FrameHeader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Coverage-guided fuzz tests of every frame of {@code /chorus/model/1.0.0}, read as the receiving side reads them:
 * header first, bounded before its payload is taken, then the payload by type, and a body's chunks through a
 * {@link ModelBodyDecoder}. {@link ExchangeException} is the only rejection; nothing is allocated beyond the limits
 * (a body header never announces more than {@link ExchangeLimits#maxParameters()}), and every frame that decodes
 * encodes back to the same bytes. Regression inputs: {@code ModelExchangeFuzzTestInputs/}.
 */
class ModelExchangeFuzzTest {
    private static final ExchangeLimits LIMITS =
            ExchangeLimits.defaults().withMaxParameters(64).withMaxChunkValues(16);

    @FuzzTest
    void frames(byte[] data) {
        try {
            receive(data);
        } catch (ExchangeException rejected) {
            // the protocol's one rejection: its code goes back to the peer in an ERROR frame
        }
    }

    /** A valid update of fuzzer-chosen values, sent and received: the receiver returns what was sent. */
    @FuzzTest
    void roundTrip(FuzzedDataProvider in) {
        int dimension = in.consumeInt(1, LIMITS.maxParameters());
        Dtype dtype = in.pickValue(Dtype.values());
        int chunk = in.consumeInt(1, LIMITS.maxChunkValues());
        ModelUpdate sent = update(in, dimension);
        ModelBodyEncoder encoder = new ModelBodyEncoder(new byte[32], sent, dtype, chunk, null);
        List<byte[]> frames = new ArrayList<>();
        frames.add(encoder.headerFrame());
        while (encoder.hasNextChunk()) {
            frames.add(encoder.nextChunkFrame());
        }
        ModelUpdate got = receive(concat(frames));
        assertThat(got).isNotNull();
        assertThat(got.dimension()).isEqualTo(dimension);
        assertThat(got.indices()).isEqualTo(sent.indices());
        if (dtype == Dtype.F32) {
            assertThat(got.values()).isEqualTo(sent.values());
        }
    }

    private static ModelUpdate update(FuzzedDataProvider in, int dimension) {
        boolean fragment = in.consumeBoolean();
        int[] indices = null;
        int count = dimension;
        if (fragment) {
            // One choice per coordinate: bounded by the dimension whatever the fuzzer's bytes hold.
            int[] chosen = new int[dimension];
            count = 0;
            for (int i = 0; i < dimension; i++) {
                if (in.consumeBoolean()) {
                    chosen[count++] = i;
                }
            }
            if (count == 0) {
                chosen[count++] = 0;
            }
            indices = Arrays.copyOf(chosen, count);
        }
        float[] values = new float[count];
        for (int i = 0; i < count; i++) {
            float v = in.consumeRegularFloat(-1e6f, 1e6f);
            values[i] = Float.isFinite(v) ? v : 0;
        }
        return fragment
                ? ModelUpdate.fragment("fuzz", 1, 1, dimension, indices, values)
                : ModelUpdate.full("fuzz", 1, 1, values);
    }

    /**
     * Reads frames until the bytes end; returns the update of the first body completed. The local model is taken to
     * have the architecture and size the body header announces, so that the fuzzer reaches the chunk decoder.
     */
    private static ModelUpdate receive(byte[] data) {
        int off = 0;
        ModelBodyDecoder body = null;
        while (off + ModelExchangeCodec.HEADER_BYTES <= data.length) {
            FrameHeader h = ModelExchangeCodec.parseHeader(
                    Arrays.copyOfRange(data, off, off + ModelExchangeCodec.HEADER_BYTES), LIMITS);
            off += ModelExchangeCodec.HEADER_BYTES;
            if (body != null && h.type() == FrameType.CHUNK) {
                body.checkChunkLength(h.length());
            }
            if (h.length() > data.length - off) {
                return null;
            }
            byte[] payload = Arrays.copyOfRange(data, off, off + h.length());
            off += h.length();
            switch (h.type()) {
                case PULL -> {
                    ModelExchangeCodec.Pull pull = ModelExchangeCodec.decodePull(payload);
                    assertThat(ModelExchangeCodec.encodePull(pull))
                            .isEqualTo(ModelExchangeCodec.frame(FrameType.PULL, payload));
                }
                case PARAMS, FRAGMENT -> {
                    BodyHeader header = ModelExchangeCodec.decodeBodyHeader(h.type(), payload, LIMITS);
                    assertThat(header.model().dimension()).isLessThanOrEqualTo(LIMITS.maxParameters());
                    assertThat(header.encoding().chunkValues()).isLessThanOrEqualTo(LIMITS.maxChunkValues());
                    assertThat(ModelExchangeCodec.encodeBodyHeader(header))
                            .isEqualTo(ModelExchangeCodec.frame(h.type(), payload));
                    body = new ModelBodyDecoder(
                            header,
                            "fuzz",
                            header.model().architecture(),
                            header.model().dimension(),
                            null);
                }
                case CHUNK -> {
                    if (body == null) {
                        throw new ExchangeException(ErrorCode.UNEXPECTED, "CHUNK before a body header");
                    }
                    body.accept(payload);
                    if (body.isComplete()) {
                        return body.finish();
                    }
                }
                case ERROR -> {
                    ModelExchangeCodec.ErrorFrame e = ModelExchangeCodec.decodeError(payload);
                    assertThat(e.reason().getBytes(StandardCharsets.UTF_8).length)
                            .isLessThanOrEqualTo(3 * ModelExchangeCodec.MAX_REASON_BYTES);
                }
                case ACK -> assertThat(payload).hasSize(ModelExchangeCodec.ACK_BYTES);
                case BATCH -> {
                    int count = ModelExchangeCodec.decodeBatch(payload);
                    assertThat(count).isBetween(2, ModelExchangeCodec.MAX_BATCH_BODIES);
                    assertThat(ModelExchangeCodec.encodeBatch(count))
                            .isEqualTo(ModelExchangeCodec.frame(FrameType.BATCH, payload));
                }
            }
        }
        return null;
    }

    private static byte[] concat(List<byte[]> frames) {
        int n = frames.stream().mapToInt(f -> f.length).sum();
        byte[] out = new byte[n];
        int off = 0;
        for (byte[] f : frames) {
            System.arraycopy(f, 0, out, off, f.length);
            off += f.length;
        }
        return out;
    }
}
