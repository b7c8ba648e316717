package dev.chorus.node.secagg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.gossip.identity.PrivateKey;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SecureWireTest {

    private static final Terms TERMS = new Terms(0, 0, 32);

    private static List<String> peers(int n, Random r) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            byte[] seed = new byte[32];
            r.nextBytes(seed);
            out.add(PrivateKey.fromSeed(seed).peerId().toBase58());
        }
        return out;
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4})
    void framesRoundTrip(long seed) {
        Random r = new Random(seed);
        long round = r.nextLong();
        Terms terms = new Terms(
                r.nextInt(SecureWire.MAX_SCALE + 1),
                Terms.MIN_RANGE_EXPONENT + r.nextInt(Terms.MAX_RANGE_EXPONENT - Terms.MIN_RANGE_EXPONENT + 1),
                r.nextBoolean() ? 16 : 32);
        assertThat(SecureWire.decode(SecureWire.offer(round, terms), 8)).isEqualTo(new SecureWire.Offer(round, terms));
        List<String> members = peers(1 + r.nextInt(8), r);
        assertThat(SecureWire.decode(SecureWire.start(round, terms, members), 8))
                .isEqualTo(new SecureWire.Start(round, terms, members));
        byte[] message = new byte[1 + r.nextInt(300)];
        r.nextBytes(message);
        SecureWire.Round back = (SecureWire.Round) SecureWire.decode(SecureWire.round(round, message), 8);
        assertThat(back.round()).isEqualTo(round);
        assertThat(back.message()).isEqualTo(message);
    }

    @ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.EnumSource(dev.chorus.node.protocol.Dtype.class)
    void aSumRoundTripsInEveryDtype(dev.chorus.node.protocol.Dtype dtype) {
        Random r = new Random(dtype.code());
        float[] values = new float[SecureWire.SUM_CHUNK * 2 + 17];
        for (int i = 0; i < values.length; i++) {
            values[i] = (float) (r.nextGaussian() * 3);
        }
        byte[] frame = SecureWire.sum(9, dtype, 7, 123456, values);
        assertThat(frame).hasSize((int)
                (20 + dev.chorus.node.protocol.Quantization.chunkedBytes(dtype, values.length, SecureWire.SUM_CHUNK)));
        SecureWire.Sum back = (SecureWire.Sum) SecureWire.decode(frame, 8);
        assertThat(back.round()).isEqualTo(9);
        assertThat(back.contributors()).isEqualTo(7);
        assertThat(back.sampleCount()).isEqualTo(123456);
        for (int i = 0; i < values.length; i++) {
            int chunk = i / SecureWire.SUM_CHUNK * SecureWire.SUM_CHUNK;
            float scale = dev.chorus.node.protocol.Quantization.int8Scale(
                    values, chunk, Math.min(SecureWire.SUM_CHUNK, values.length - chunk));
            assertThat(back.values()[i])
                    .isEqualTo(dev.chorus.node.protocol.Quantization.roundTrip(dtype, values[i], scale));
        }
    }

    @Test
    void malformedSumsAreRefusedWithTheirFault() {
        float[] values = {1, 2, 3};
        byte[] good = SecureWire.sum(1, dev.chorus.node.protocol.Dtype.F32, 3, 10, values);
        assertThatThrownBy(() -> SecureWire.decode(Arrays.copyOf(good, good.length - 1), 8))
                .hasMessageContaining("bytes for 3 F32 values");
        assertThatThrownBy(() -> SecureWire.decode(Arrays.copyOf(good, good.length + 1), 8))
                .hasMessageContaining("bytes for 3 F32 values");
        byte[] dtype = good.clone();
        dtype[9] = 9;
        assertThatThrownBy(() -> SecureWire.decode(dtype, 8)).hasMessageContaining("unknown dtype 9");
        assertThatThrownBy(() -> SecureWire.decode(good, 2)).hasMessageContaining("at most 2");
        byte[] empty = SecureWire.sum(1, dev.chorus.node.protocol.Dtype.F32, 3, 10, new float[0]);
        assertThatThrownBy(() -> SecureWire.decode(empty, 8)).hasMessageContaining("a SUM of 0 values");
        byte[] nan = SecureWire.sum(1, dev.chorus.node.protocol.Dtype.F32, 3, 10, new float[] {1, Float.NaN, 3});
        assertThatThrownBy(() -> SecureWire.decode(nan, 8)).hasMessageContaining("value 1 is not finite");
        byte[] int8 = SecureWire.sum(1, dev.chorus.node.protocol.Dtype.INT8, 3, 10, values);
        ByteBuffer.wrap(int8, 20, 4).order(java.nio.ByteOrder.LITTLE_ENDIAN).putFloat(Float.POSITIVE_INFINITY);
        assertThatThrownBy(() -> SecureWire.decode(int8, 8)).hasMessageContaining("int8 scale");
        for (int cut = 0; cut < good.length; cut++) {
            byte[] part = Arrays.copyOf(good, cut);
            assertThatThrownBy(() -> SecureWire.decode(part, 8)).isInstanceOf(SecureWire.MalformedFrameException.class);
        }
    }

    @Test
    void anEmptyStartCancelsTheRound() {
        assertThat(SecureWire.decode(SecureWire.start(7, TERMS, List.of()), 8))
                .isEqualTo(new SecureWire.Start(7, TERMS, List.of()));
    }

    @Test
    void malformedFramesAreRefusedWithTheirFault() {
        Random r = new Random(5);
        byte[] start = SecureWire.start(3, new Terms(5, -3, 16), peers(4, r));
        assertThatThrownBy(() -> SecureWire.decode(new byte[0], 8)).hasMessageContaining("ends early");
        assertThatThrownBy(() -> SecureWire.decode(new byte[] {9, 0, 0, 0, 0, 0, 0, 0, 0}, 8))
                .hasMessageContaining("unknown frame kind 9");
        assertThatThrownBy(() -> SecureWire.decode(Arrays.copyOf(SecureWire.offer(1, TERMS), 13), 8))
                .hasMessageContaining("1 bytes after the frame");
        assertThatThrownBy(() -> SecureWire.decode(Arrays.copyOf(start, start.length - 1), 8))
                .hasMessageContaining("ends early");
        assertThatThrownBy(() -> SecureWire.decode(start, 3)).hasMessageContaining("at most 3");
        assertThatThrownBy(() -> SecureWire.decode(Arrays.copyOf(SecureWire.round(1, new byte[] {1}), 9), 8))
                .hasMessageContaining("carries no message");
        byte[] zeroLength = ByteBuffer.allocate(15)
                .put(SecureWire.START)
                .putLong(1)
                .put(new byte[] {0, 0, 32})
                .putShort((short) 1)
                .array();
        assertThatThrownBy(() -> SecureWire.decode(zeroLength, 8)).hasMessageContaining("has 0 bytes");
        byte[] bogus = ByteBuffer.allocate(18)
                .put(SecureWire.START)
                .putLong(1)
                .put(new byte[] {0, 0, 32})
                .putShort((short) 1)
                .put((byte) 3)
                .put(new byte[] {1, 2, 3})
                .array();
        assertThatThrownBy(() -> SecureWire.decode(bogus, 8)).hasMessageContaining("is invalid");
        List<String> twice = peers(2, r);
        twice.add(twice.get(0));
        assertThatThrownBy(() -> SecureWire.decode(SecureWire.start(1, TERMS, twice), 8))
                .hasMessageContaining("twice");
        byte[] offer = SecureWire.offer(1, TERMS);
        offer[9] = (byte) (SecureWire.MAX_SCALE + 1);
        assertThatThrownBy(() -> SecureWire.decode(offer, 8)).hasMessageContaining("weight scale 33 is outside 0..32");
        byte[] scaled = SecureWire.start(1, TERMS, List.of());
        scaled[9] = (byte) 0xff;
        assertThatThrownBy(() -> SecureWire.decode(scaled, 8)).hasMessageContaining("weight scale 255 is outside");
        byte[] ranged = SecureWire.offer(1, TERMS);
        ranged[10] = (byte) 33;
        assertThatThrownBy(() -> SecureWire.decode(ranged, 8)).hasMessageContaining("range exponent 33 is outside");
        ranged[10] = (byte) -33;
        assertThatThrownBy(() -> SecureWire.decode(ranged, 8)).hasMessageContaining("range exponent -33 is outside");
        byte[] worded = SecureWire.start(1, TERMS, List.of());
        worded[11] = 24;
        assertThatThrownBy(() -> SecureWire.decode(worded, 8)).hasMessageContaining("16 or 32 bits, not 24");
        assertThatThrownBy(() -> new Terms(33, 0, 32)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void everyTruncationOfEveryFrameIsRefusedWithoutAnotherException() {
        Random r = new Random(11);
        Terms terms = new Terms(3, -1, 16);
        for (byte[] frame : List.of(SecureWire.offer(4, terms), SecureWire.start(4, terms, peers(5, r)))) {
            for (int cut = 0; cut < frame.length; cut++) {
                byte[] part = Arrays.copyOf(frame, cut);
                assertThatThrownBy(() -> SecureWire.decode(part, 8))
                        .isInstanceOf(SecureWire.MalformedFrameException.class);
            }
        }
    }
}
