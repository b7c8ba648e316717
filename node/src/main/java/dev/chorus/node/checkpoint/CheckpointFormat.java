package dev.chorus.node.checkpoint;

import dev.chorus.learning.json.JsonException;
import dev.chorus.learning.json.JsonReader;
import dev.chorus.learning.json.JsonWriter;
import dev.chorus.learning.optim.OptimizerSnapshot;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * The checkpoint file format, version 1. All integers big-endian, floats IEEE 754 little-endian
 * (the order the JVM and every backend use in memory, so a whole vector is one bulk copy):
 *
 * <pre>
 * "CHORUSCK"                         8 bytes magic
 * u32 format version (1)
 * u32 n, then n bytes of UTF-8 JSON:  {"version", "steps", "createdMillis", "model", "optimizer",
 *                                      "optimizerSteps", "metrics": {name: number|null}}
 * u32 p, then p float32              the parameter vector
 * u32 s, then s times p float32      the optimizer's state vectors
 * 32 bytes                           SHA-256 of every byte before it
 * </pre>
 */
final class CheckpointFormat {

    static final byte[] MAGIC = "CHORUSCK".getBytes(StandardCharsets.US_ASCII);
    static final int FORMAT_VERSION = 1;
    static final int DIGEST_BYTES = 32;
    /** Upper bound on the JSON header, so that a corrupt length cannot ask for gigabytes. */
    static final int MAX_HEADER_BYTES = 1 << 20;

    private CheckpointFormat() {}

    static void write(Checkpoint c, OutputStream raw) throws IOException {
        MessageDigest sha = sha256();
        DataOutputStream out = new DataOutputStream(new java.security.DigestOutputStream(raw, sha));
        out.write(MAGIC);
        out.writeInt(FORMAT_VERSION);
        byte[] header = header(c).getBytes(StandardCharsets.UTF_8);
        out.writeInt(header.length);
        out.write(header);
        out.writeInt(c.parameters().length);
        writeFloats(out, c.parameters());
        float[][] slots = c.optimizerState().slots();
        out.writeInt(slots.length);
        for (float[] slot : slots) {
            if (slot.length != c.parameters().length) {
                throw new IllegalArgumentException(
                        "optimizer state vector has " + slot.length + " values, expected " + c.parameters().length);
            }
            writeFloats(out, slot);
        }
        out.flush();
        raw.write(sha.digest());
    }

    static Checkpoint read(byte[] bytes) throws CorruptCheckpointException {
        if (bytes.length < MAGIC.length + 4 + DIGEST_BYTES) {
            throw new CorruptCheckpointException("truncated (" + bytes.length + " bytes)");
        }
        int bodyLength = bytes.length - DIGEST_BYTES;
        MessageDigest sha = sha256();
        sha.update(bytes, 0, bodyLength);
        if (!MessageDigest.isEqual(sha.digest(), Arrays.copyOfRange(bytes, bodyLength, bytes.length))) {
            throw new CorruptCheckpointException("checksum mismatch");
        }
        ByteBuffer in = ByteBuffer.wrap(bytes, 0, bodyLength);
        byte[] magic = new byte[MAGIC.length];
        in.get(magic);
        if (!Arrays.equals(magic, MAGIC)) {
            throw new CorruptCheckpointException("not a checkpoint file (bad magic)");
        }
        int format = in.getInt();
        if (format != FORMAT_VERSION) {
            throw new CorruptCheckpointException("unknown format version " + format);
        }
        try {
            int headerLength = length(in, MAX_HEADER_BYTES, 1, "header");
            byte[] header = new byte[headerLength];
            in.get(header);
            Map<String, Object> h = JsonReader.parseObject(new String(header, StandardCharsets.UTF_8));
            int p = length(in, Integer.MAX_VALUE, 4, "parameter vector");
            float[] parameters = readFloats(in, p);
            int s = in.getInt();
            if (s < 0 || s > 8 || (long) s * p * 4 > in.remaining()) {
                throw new CorruptCheckpointException("bad optimizer state count " + s);
            }
            float[][] slots = new float[s][];
            for (int i = 0; i < s; i++) {
                slots[i] = readFloats(in, p);
            }
            if (in.hasRemaining()) {
                throw new CorruptCheckpointException(in.remaining() + " unexpected bytes before the checksum");
            }
            Map<String, Double> metrics = new TreeMap<>();
            if (h.get("metrics") instanceof Map<?, ?> m) {
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    metrics.put(
                            String.valueOf(e.getKey()),
                            e.getValue() instanceof Number n ? n.doubleValue() : Double.NaN);
                }
            }
            return new Checkpoint(
                    longOf(h, "version"),
                    longOf(h, "steps"),
                    longOf(h, "createdMillis"),
                    stringOf(h, "model"),
                    stringOf(h, "optimizer"),
                    parameters,
                    new OptimizerSnapshot(longOf(h, "optimizerSteps"), slots),
                    metrics);
        } catch (JsonException | java.nio.BufferUnderflowException | IllegalArgumentException e) {
            throw new CorruptCheckpointException("unreadable content: " + e.getMessage());
        }
    }

    private static String header(Checkpoint c) {
        StringBuilder sb = new StringBuilder();
        JsonWriter w = JsonWriter.compact(sb);
        w.beginObject();
        w.member("version", c.version());
        w.member("steps", c.steps());
        w.member("createdMillis", c.createdMillis());
        w.member("model", c.model());
        w.member("optimizer", c.optimizer());
        w.member("optimizerSteps", c.optimizerState().steps());
        w.name("metrics").beginObject();
        for (Map.Entry<String, Double> e : new TreeMap<>(c.metrics()).entrySet()) {
            w.member(e.getKey(), e.getValue());
        }
        w.endObject();
        w.endObject();
        w.finish();
        return sb.toString();
    }

    private static int length(ByteBuffer in, int max, int unit, String what) throws CorruptCheckpointException {
        int n = in.getInt();
        if (n < 0 || n > max || (long) n * unit > in.remaining()) {
            throw new CorruptCheckpointException("bad " + what + " length " + n);
        }
        return n;
    }

    private static void writeFloats(DataOutputStream out, float[] v) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(Math.min(v.length, 1 << 16) * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (int off = 0; off < v.length; ) {
            int n = Math.min(v.length - off, buf.capacity() / 4);
            buf.clear();
            buf.asFloatBuffer().put(v, off, n);
            out.write(buf.array(), 0, n * 4);
            off += n;
        }
    }

    private static float[] readFloats(ByteBuffer in, int n) {
        float[] v = new float[n];
        ByteBuffer slice = in.slice(in.position(), n * 4).order(ByteOrder.LITTLE_ENDIAN);
        slice.asFloatBuffer().get(v);
        in.position(in.position() + n * 4);
        return v;
    }

    private static long longOf(Map<String, Object> h, String key) throws CorruptCheckpointException {
        if (h.get(key) instanceof Long l) {
            return l;
        }
        throw new CorruptCheckpointException("header lacks " + key);
    }

    private static String stringOf(Map<String, Object> h, String key) throws CorruptCheckpointException {
        if (h.get(key) instanceof String s) {
            return s;
        }
        throw new CorruptCheckpointException("header lacks " + key);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK lacks SHA-256", e);
        }
    }
}
