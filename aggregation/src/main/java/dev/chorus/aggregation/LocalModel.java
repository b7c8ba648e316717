package dev.chorus.aggregation;

import java.util.Objects;

/**
 * The local node's model as strategies see it: the live flat parameter vector, which strategies merge into in
 * place, a version and the node's sample count.
 *
 * <p>The version is a logical age: the trainer calls {@link #advance()} after every local step, and
 * asynchronous strategies set it to the larger of the two versions when they merge (as gossip learning does
 * with model age), so staleness is the version lag between two models.
 *
 * <p>Not thread-safe: the trainer and the averaging engine take turns between steps.
 */
public final class LocalModel {

    private final String id;
    private final float[] params;
    private long version;
    private long sampleCount;

    /**
     * @param id this node's id, as peers know it
     * @param params the live parameter vector (not copied)
     * @param version the initial version, at least 0
     * @param sampleCount training examples this node holds, at least 0
     */
    public LocalModel(String id, float[] params, long version, long sampleCount) {
        if (id == null || id.isBlank()) {
            throw new IllegalArgumentException("local model needs a node id");
        }
        Objects.requireNonNull(params, "params");
        if (params.length == 0) {
            throw new IllegalArgumentException("local model has no parameters");
        }
        ParameterVectors.requireFinite(params, "local model");
        this.id = id;
        this.params = params;
        setVersion(version);
        setSampleCount(sampleCount);
    }

    public String id() {
        return id;
    }

    /** The live parameter vector. */
    public float[] params() {
        return params;
    }

    public int dimension() {
        return params.length;
    }

    public long version() {
        return version;
    }

    public void setVersion(long version) {
        if (version < 0) {
            throw new IllegalArgumentException("negative version " + version);
        }
        this.version = version;
    }

    /** Records one local training step. */
    public void advance() {
        version++;
    }

    public long sampleCount() {
        return sampleCount;
    }

    public void setSampleCount(long sampleCount) {
        if (sampleCount < 0) {
            throw new IllegalArgumentException("negative sample count " + sampleCount);
        }
        this.sampleCount = sampleCount;
    }

    /** A copy of the parameters, to send while training goes on. */
    public float[] snapshot() {
        return params.clone();
    }
}
