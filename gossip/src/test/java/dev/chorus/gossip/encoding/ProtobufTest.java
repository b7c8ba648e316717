package dev.chorus.gossip.encoding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.codec.CorruptedFrameException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ProtobufTest {
    private static final HexFormat HEX = HexFormat.of();

    @Test
    void writesKeyProtobufLayout() {
        byte[] key = new byte[32];
        byte[] pb = new ProtobufWriter().varint(1, 1).bytes(2, key).toByteArray();
        assertThat(HEX.formatHex(pb, 0, 4)).isEqualTo("08011220");
        assertThat(pb).hasSize(36);
    }

    /** Random fields into a writer sized exactly, one sized too small and one unsized: the same bytes, as counted. */
    @org.junit.jupiter.params.ParameterizedTest(name = "seed {0}")
    @org.junit.jupiter.params.provider.ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void aWriterOfAnySizeGivesTheSameBytesAndTheSizesAreCounted(long seed) {
        Random r = new Random(seed);
        List<byte[]> values = new ArrayList<>();
        List<Integer> fields = new ArrayList<>();
        int expected = 0;
        for (int i = 0, n = 1 + r.nextInt(6); i < n; i++) {
            byte[] v = new byte[r.nextInt(4) == 0 ? r.nextInt(300_000) : r.nextInt(200)];
            r.nextBytes(v);
            int field = 1 + r.nextInt(r.nextBoolean() ? 15 : 100_000);
            values.add(v);
            fields.add(field);
            expected += ProtobufWriter.sizeOfBytes(field, v.length);
        }
        ProtobufWriter exact = new ProtobufWriter(expected);
        ProtobufWriter small = new ProtobufWriter(r.nextInt(8));
        ProtobufWriter unsized = new ProtobufWriter();
        for (int i = 0; i < values.size(); i++) {
            exact.bytes(fields.get(i), values.get(i));
            small.bytes(fields.get(i), values.get(i));
            unsized.bytes(fields.get(i), values.get(i));
        }
        byte[] a = exact.toByteArray();
        assertThat(a).hasSize(expected).isEqualTo(small.toByteArray()).isEqualTo(unsized.toByteArray());
        ProtobufReader reader = new ProtobufReader(a);
        for (int i = 0; i < values.size(); i++) {
            assertThat(reader.next()).isTrue();
            assertThat(reader.field()).isEqualTo(fields.get(i));
            assertThat(reader.bytes()).isEqualTo(values.get(i));
        }
        assertThat(reader.next()).isFalse();
    }

    @Test
    void varintSizesAreCountedAtEveryBoundary() {
        for (long v : new long[] {0, 1, 127, 128, 16_383, 16_384, (1L << 35) - 1, 1L << 35, Long.MAX_VALUE, -1}) {
            ProtobufWriter w = new ProtobufWriter(0).varint(1, v);
            assertThat(w.size()).as("varint %d", v).isEqualTo(1 + ProtobufWriter.sizeOfVarint(v));
        }
    }

    @Test
    void anArrayHandedOutIsNotChangedByLaterWrites() {
        ProtobufWriter w = new ProtobufWriter(3).bytes(1, new byte[] {7});
        byte[] first = w.toByteArray();
        assertThat(first).containsExactly(0x0a, 1, 7);
        w.bytes(2, new byte[] {9});
        assertThat(first).containsExactly(0x0a, 1, 7);
        assertThat(w.toByteArray()).containsExactly(0x0a, 1, 7, 0x12, 1, 9);
        ProtobufWriter full = new ProtobufWriter(1).raw(new byte[] {5});
        byte[] once = full.toByteArray();
        assertThat(full.toByteArray()).isNotSameAs(once).containsExactly(5);
    }

    @Test
    void readsAnyOrderAndSkipsUnknownFields() {
        byte[] pb = new ProtobufWriter()
                .string(5, "ipfs/0.1.0")
                .varint(99, 12345)
                .bytes(2, new byte[] {1, 2})
                .string(3, "/a")
                .string(3, "/b")
                .message(7, new ProtobufWriter().varint(1, 3))
                .toByteArray();
        // A fixed32 and fixed64 field too, which the writer does not produce.
        byte[] extra = HEX.parseHex("0d01020304" + "4901020304050607 08".replace(" ", ""));
        byte[] all = new byte[pb.length + extra.length];
        System.arraycopy(extra, 0, all, 0, extra.length);
        System.arraycopy(pb, 0, all, extra.length, pb.length);

        ProtobufReader r = new ProtobufReader(all);
        String version = null;
        byte[] two = null;
        List<String> protocols = new ArrayList<>();
        while (r.next()) {
            switch (r.field()) {
                case 5 -> version = r.string();
                case 2 -> two = r.bytes();
                case 3 -> protocols.add(r.string());
                default -> r.skip();
            }
        }
        assertThat(version).isEqualTo("ipfs/0.1.0");
        assertThat(two).containsExactly(1, 2);
        assertThat(protocols).containsExactly("/a", "/b");
    }

    @Test
    void rejectsTruncatedAndOverrunningFields() {
        assertThatThrownBy(() -> drain(HEX.parseHex("0a05010203"))).isInstanceOf(CorruptedFrameException.class);
        assertThatThrownBy(() -> drain(HEX.parseHex("08"))).isInstanceOf(CorruptedFrameException.class);
        assertThatThrownBy(() -> drain(HEX.parseHex("0b"))).isInstanceOf(CorruptedFrameException.class);
        assertThatThrownBy(() -> drain(HEX.parseHex("0a02c328")).forEach(r -> {}))
                .isInstanceOf(CorruptedFrameException.class);
    }

    /** Random bytes never escape as anything but CorruptedFrameException. */
    /** A 10-byte length varint with bit 63 set is negative as a long; it must not pass the overrun check. */
    @Test
    void rejectsLengthWithTheSignBitSet() {
        // field 1, length-delimited, a ten-byte length of 2^64 - 388 (-388 as a long), then a valid field
        byte[] msg = HexFormat.of().parseHex("0afcfcffffffffffffff01" + "0a0568656c6c6f");
        ProtobufReader r = new ProtobufReader(msg);
        assertThat(r.next()).isTrue();
        assertThatThrownBy(r::bytes).isInstanceOf(CorruptedFrameException.class).hasMessageContaining("overruns");
        ProtobufReader s = new ProtobufReader(msg);
        s.next();
        assertThatThrownBy(s::skip).isInstanceOf(CorruptedFrameException.class);
        ProtobufReader m = new ProtobufReader(msg);
        m.next();
        assertThatThrownBy(m::message).isInstanceOf(CorruptedFrameException.class);
    }

    @Test
    void randomInputOnlyFailsCleanly() {
        long seed = 42;
        Random rnd = new Random(seed);
        for (int i = 0; i < 2000; i++) {
            byte[] b = new byte[rnd.nextInt(40)];
            rnd.nextBytes(b);
            try {
                drain(b);
            } catch (CorruptedFrameException expected) {
                // fine
            } catch (RuntimeException e) {
                throw new AssertionError("seed " + seed + " iteration " + i + ": " + HEX.formatHex(b), e);
            }
        }
    }

    private static List<ProtobufReader> drain(byte[] b) {
        ProtobufReader r = new ProtobufReader(b);
        while (r.next()) {
            if (r.wireType() == 2 && r.field() == 1) {
                r.string();
            } else {
                r.skip();
            }
        }
        return List.of(r);
    }
}
