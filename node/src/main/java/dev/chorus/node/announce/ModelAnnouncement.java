package dev.chorus.node.announce;

import dev.chorus.node.protocol.Dtype;
import dev.chorus.node.protocol.ModelBodyEncoder;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What a node tells its consortium about its model: small enough for one gossip message; the parameters themselves
 * travel on {@code /chorus/model/1.0.0} streams.
 *
 * @param peer the announcing node's peer id (base58)
 * @param architecture the {@link dev.chorus.node.protocol.ArchitectureHash} of its model (32 bytes)
 * @param version its model version
 * @param sampleCount its training examples
 * @param digest SHA-256 of its current float32 parameter vector (32 bytes)
 * @param timestampMillis when it was made, milliseconds since the epoch
 * @param metrics its latest local metrics (e.g. {@code loss}, {@code accuracy}); at most {@link #MAX_METRICS}
 *     entries, names of 1 to {@link #MAX_METRIC_NAME} ASCII characters, finite values
 */
public record ModelAnnouncement(
        String peer,
        byte[] architecture,
        long version,
        long sampleCount,
        byte[] digest,
        long timestampMillis,
        Map<String, Double> metrics) {

    public static final int MAX_METRICS = 16;
    public static final int MAX_METRIC_NAME = 32;

    public ModelAnnouncement {
        Objects.requireNonNull(peer, "peer");
        if (peer.isEmpty() || peer.length() > 128) {
            throw new IllegalArgumentException("peer id of " + peer.length() + " characters");
        }
        if (architecture == null || architecture.length != 32 || digest == null || digest.length != 32) {
            throw new IllegalArgumentException("architecture and digest must be 32 bytes each");
        }
        if (version < 0 || sampleCount < 0) {
            throw new IllegalArgumentException("negative version or sample count");
        }
        architecture = architecture.clone();
        digest = digest.clone();
        metrics = new TreeMap<>(Objects.requireNonNull(metrics, "metrics"));
        if (metrics.size() > MAX_METRICS) {
            throw new IllegalArgumentException(metrics.size() + " metrics, at most " + MAX_METRICS);
        }
        for (var e : metrics.entrySet()) {
            String k = e.getKey();
            if (k.isEmpty() || k.length() > MAX_METRIC_NAME || !k.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
                throw new IllegalArgumentException("bad metric name '" + k + "'");
            }
            if (e.getValue() == null || !Double.isFinite(e.getValue())) {
                throw new IllegalArgumentException("metric " + k + " is " + e.getValue());
            }
        }
        metrics = java.util.Collections.unmodifiableMap(metrics);
    }

    /**
     * The {@link #digest()} of a parameter vector: SHA-256 of its float32 values, little-endian, as the header of a
     * float32 body on {@code /chorus/model/1.0.0} carries it.
     */
    public static byte[] parameterDigest(float[] params) {
        return ModelBodyEncoder.digest(Dtype.F32, params, 16 * 1024, null);
    }

    @Override
    public byte[] architecture() {
        return architecture.clone();
    }

    @Override
    public byte[] digest() {
        return digest.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ModelAnnouncement a
                && peer.equals(a.peer)
                && java.util.Arrays.equals(architecture, a.architecture)
                && version == a.version
                && sampleCount == a.sampleCount
                && java.util.Arrays.equals(digest, a.digest)
                && timestampMillis == a.timestampMillis
                && metrics.equals(a.metrics);
    }

    @Override
    public int hashCode() {
        return Objects.hash(peer, version, sampleCount, timestampMillis, metrics)
                + 31 * java.util.Arrays.hashCode(digest);
    }
}
