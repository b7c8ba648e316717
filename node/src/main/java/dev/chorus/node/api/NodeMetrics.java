package dev.chorus.node.api;

import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The node's live metrics, written by the training loop, and the averaging strategy, and read by the API from any thread; the model exchange's byte counters and the averaging
 * engine's counters are bound and read when asked. Counters only grow; gauges hold the latest value.
 */
public final class NodeMetrics {

    /** Upper bounds of the staleness histogram's buckets (model versions behind), {@code +Inf} last. */
    public static final long[] STALENESS_BUCKETS = {0, 1, 2, 4, 8, 16, 32, 64, 128};

    /** Alpha of the training loss's exponential moving average. */
    static final double LOSS_EMA_ALPHA = 0.05;

    private static final int RATE_WINDOW = 64;

    private final InstantSource clock;
    private final AtomicLong version = new AtomicLong();
    private final AtomicLong steps = new AtomicLong();
    private final LongAdder apiConnectionsRefused = new LongAdder();
    private volatile double trainLoss = Double.NaN;
    private volatile double learningRate = Double.NaN;
    private volatile double accuracy = Double.NaN;
    private volatile double validationLoss = Double.NaN;
    private volatile double auc = Double.NaN;
    private volatile long lastCheckpointMillis = -1;
    private volatile long lastCheckpointVersion = -1;
    private final LongAdder checkpointsWritten = new LongAdder();
    private final LongAdder collapses = new LongAdder();
    private final LongAdder rollbacks = new LongAdder();
    private volatile String lastCollapse = "";
    private volatile long lastCollapseMillis = -1;
    private volatile long lastRollbackVersion = -1;
    private final long[] stepNanos = new long[RATE_WINDOW];
    private int stepCursor;
    private long stepSamples;
    private final Map<String, LongAdder> bytesIn = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> bytesOut = new ConcurrentHashMap<>();
    private final AtomicLongArray stalenessCounts = new AtomicLongArray(STALENESS_BUCKETS.length + 1);
    private final LongAdder stalenessSum = new LongAdder();
    private final EvaluationHistory history = new EvaluationHistory();
    private final Map<String, LongSupplier[]> boundBytes = new ConcurrentHashMap<>();
    private final Map<String, PeerExchanges> peerExchanges = new ConcurrentHashMap<>();
    private volatile Supplier<AveragingCounters> averaging = () -> AveragingCounters.NONE;
    private volatile LongSupplier auditRecords = () -> 0;
    private volatile LongSupplier auditDropped = () -> 0;
    private volatile AuditGrowth auditGrowth;
    private volatile EarlyStoppingState earlyStopping = EarlyStoppingState.initial("off");
    private volatile long screeningClipped;
    private volatile long screeningRefused;
    private volatile int screeningExcluded;

    public NodeMetrics(InstantSource clock) {
        this.clock = clock;
    }

    /** Starts counting from a restored checkpoint. */
    public void resumeFrom(long modelVersion, long stepCount, long checkpointMillis) {
        version.set(modelVersion);
        steps.set(stepCount);
        lastCheckpointMillis = checkpointMillis;
        lastCheckpointVersion = modelVersion;
    }

    /** Records one local optimizer step that produced model version {@code newVersion}. */
    public void recordStep(long newVersion, float loss, long nanoTime) {
        version.set(newVersion);
        steps.incrementAndGet();
        double l = trainLoss;
        trainLoss = Double.isNaN(l) ? loss : l + LOSS_EMA_ALPHA * (loss - l);
        synchronized (stepNanos) {
            stepNanos[stepCursor] = nanoTime;
            stepCursor = (stepCursor + 1) % RATE_WINDOW;
            stepSamples++;
        }
    }

    /** Forgets the training loss's moving average (after a revert): it restarts from the next step's loss. */
    public void resetTrainLoss() {
        trainLoss = Double.NaN;
    }

    /** Records an evaluation on the validation split and appends it to the history. */
    public void recordEvaluation(double acc, double loss, double rocAuc) {
        accuracy = acc;
        validationLoss = loss;
        auc = rocAuc;
        history.record(new HistoryPoint(clock.millis(), version.get(), steps.get(), trainLoss, acc, loss, rocAuc));
    }

    public void recordCheckpoint(long modelVersion) {
        lastCheckpointMillis = clock.millis();
        lastCheckpointVersion = modelVersion;
        checkpointsWritten.increment();
    }

    /** Records a collapse of the model (see the training loop's detector), with why it was judged one. */
    public void recordCollapse(String reason) {
        lastCollapse = reason;
        lastCollapseMillis = clock.millis();
        collapses.increment();
    }

    /** Records that the model was reverted to the checkpoint of {@code checkpointVersion} after a collapse. */
    public void recordRollback(long checkpointVersion) {
        lastRollbackVersion = checkpointVersion;
        rollbacks.increment();
    }

    /** Collapses of the model detected since start. */
    public long collapses() {
        return collapses.sum();
    }

    /** Reverts to a checkpoint after a collapse since start. */
    public long rollbacks() {
        return rollbacks.sum();
    }

    /** Why the last collapse was judged one; empty when there was none. */
    public String lastCollapse() {
        return lastCollapse;
    }

    /** When the last collapse was detected (ms since the epoch); -1 when there was none. */
    public long lastCollapseMillis() {
        return lastCollapseMillis;
    }

    /** The checkpoint version the last revert restored; -1 when there was none. */
    public long lastRollbackVersion() {
        return lastRollbackVersion;
    }

    /** Bytes received on {@code protocol}: for the model exchange and gossip protocols. */
    public void recordBytesIn(String protocol, long bytes) {
        bytesIn.computeIfAbsent(protocol, p -> new LongAdder()).add(bytes);
    }

    /** Bytes sent on {@code protocol}. */
    public void recordBytesOut(String protocol, long bytes) {
        bytesOut.computeIfAbsent(protocol, p -> new LongAdder()).add(bytes);
    }

    /**
     * Adds the byte counters of a transport that keeps its own (e.g. the model exchange): {@link #bytesIn()} and
     * {@link #bytesOut()} report them under {@code protocol}, on top of what was recorded.
     */
    public void bindBytes(String protocol, LongSupplier received, LongSupplier sent) {
        boundBytes.put(protocol, new LongSupplier[] {received, sent});
    }

    /** Where the egress audit log's counters are read from: records written, payloads it could not record. */
    public void bindEgressAudit(LongSupplier records, LongSupplier dropped) {
        auditRecords = records;
        auditDropped = dropped;
    }

    /** Records the egress audit log has written since start. */
    /** Records where the validation loss stands against its best (after each evaluation). */
    public void recordEarlyStopping(EarlyStoppingState state) {
        this.earlyStopping = state;
    }

    public EarlyStoppingState earlyStopping() {
        return earlyStopping;
    }

    /** Binds the egress audit log's growth estimate. */
    public void bindAuditGrowth(AuditGrowth growth) {
        this.auditGrowth = growth;
    }

    /** The egress audit log's growth, or null when the node keeps none. */
    public AuditGrowth.Estimate auditGrowth() {
        AuditGrowth g = auditGrowth;
        return g == null ? null : g.estimate();
    }

    public long egressAuditRecords() {
        return auditRecords.getAsLong();
    }

    /** Outbound payloads the egress audit log could not record (its queue stayed full); should stay 0. */
    public long egressAuditDropped() {
        return auditDropped.getAsLong();
    }

    /** API connections closed on accept because api.max_connections were already open. */
    public long apiConnectionsRefused() {
        return apiConnectionsRefused.sum();
    }

    void apiConnectionRefused() {
        apiConnectionsRefused.increment();
    }

    /** Where {@link #averaging()} reads the averaging engine's counters from. */
    public void bindAveraging(Supplier<AveragingCounters> counters) {
        averaging = counters;
    }

    /** The averaging engine's counters; all zero when no engine runs. */
    public AveragingCounters averaging() {
        return averaging.get();
    }

    /**
     * Records the screening of received models as of now: models clipped and refused so far, peers excluded now.
     */
    public void recordScreening(long clipped, long refused, int peersExcluded) {
        screeningClipped = clipped;
        screeningRefused = refused;
        screeningExcluded = peersExcluded;
    }

    /** Received models whose difference from the local model was clipped (0 without screening). */
    public long screeningClipped() {
        return screeningClipped;
    }

    /** Received models refused because their sender was excluded (0 without screening). */
    public long screeningRefused() {
        return screeningRefused;
    }

    /** Peers whose models were excluded at the last screening. */
    public int screeningExcluded() {
        return screeningExcluded;
    }

    /** Records a message queued for {@code peer} by the averaging strategy. */
    public void recordExchangeQueued(String peer) {
        peer(peer).queued.increment();
    }

    /** Records a model (or fragment, or delta) from {@code peer} merged into the local model. */
    public void recordMerge(String peer, long peerVersion) {
        PeerExchanges p = peer(peer);
        p.merged.increment();
        p.lastVersion = peerVersion;
        p.lastMergeMillis = clock.millis();
    }

    /** Records an exchange with {@code peer} that failed (unreachable, refused, timed out). */
    public void recordExchangeFailure(String peer) {
        peer(peer).failures.increment();
    }

    /** Exchange counts with one peer, for {@code /api/peers}; null when nothing was exchanged with it. */
    public PeerExchangeCounts peerExchanges(String peer) {
        PeerExchanges p = peerExchanges.get(peer);
        return p == null
                ? null
                : new PeerExchangeCounts(
                        p.queued.sum(), p.merged.sum(), p.failures.sum(), p.lastVersion, p.lastMergeMillis);
    }

    private PeerExchanges peer(String peer) {
        return peerExchanges.computeIfAbsent(peer, k -> new PeerExchanges());
    }

    /** The mutable form of {@link PeerExchangeCounts}. */
    private static final class PeerExchanges {
        final LongAdder queued = new LongAdder();
        final LongAdder merged = new LongAdder();
        final LongAdder failures = new LongAdder();
        volatile long lastVersion = -1;
        volatile long lastMergeMillis = -1;
    }

    /** Records how many versions behind ours a merged peer model was. */
    public void observeStaleness(long versionsBehind) {
        long lag = Math.max(0, versionsBehind);
        int i = 0;
        while (i < STALENESS_BUCKETS.length && lag > STALENESS_BUCKETS[i]) {
            i++;
        }
        stalenessCounts.incrementAndGet(i);
        stalenessSum.add(lag);
    }

    public long version() {
        return version.get();
    }

    public long steps() {
        return steps.get();
    }

    public double trainLoss() {
        return trainLoss;
    }

    /** Records the learning rate of the next step (it changes along {@code training.lr_schedule}). */
    public void recordLearningRate(double rate) {
        learningRate = rate;
    }

    /** The learning rate of the next step; NaN before training starts. */
    public double learningRate() {
        return learningRate;
    }

    public double accuracy() {
        return accuracy;
    }

    public double validationLoss() {
        return validationLoss;
    }

    public double auc() {
        return auc;
    }

    public long checkpointsWritten() {
        return checkpointsWritten.sum();
    }

    public long lastCheckpointVersion() {
        return lastCheckpointVersion;
    }

    /** Seconds since the last checkpoint was written or restored, NaN when there is none. */
    public double checkpointAgeSeconds() {
        long last = lastCheckpointMillis;
        return last < 0 ? Double.NaN : Math.max(0, clock.millis() - last) / 1000.0;
    }

    /**
     * Steps per second over the last {@value #RATE_WINDOW} steps; 0 when fewer than two steps were
     * seen or the last one is more than 10 s old at {@code nowNanos}.
     */
    public double stepsPerSecond(long nowNanos) {
        synchronized (stepNanos) {
            int n = (int) Math.min(stepSamples, RATE_WINDOW);
            if (n < 2) {
                return 0;
            }
            long newest = stepNanos[(stepCursor - 1 + RATE_WINDOW) % RATE_WINDOW];
            long oldest = stepNanos[(stepCursor - n + RATE_WINDOW) % RATE_WINDOW];
            if (nowNanos - newest > 10_000_000_000L || newest <= oldest) {
                return 0;
            }
            return (n - 1) * 1e9 / (newest - oldest);
        }
    }

    public Map<String, Long> bytesIn() {
        return snapshot(bytesIn, 0);
    }

    public Map<String, Long> bytesOut() {
        return snapshot(bytesOut, 1);
    }

    /** Per-bucket (not cumulative) counts; the last is the {@code +Inf} bucket. */
    public long[] stalenessCounts() {
        long[] out = new long[stalenessCounts.length()];
        for (int i = 0; i < out.length; i++) {
            out[i] = stalenessCounts.get(i);
        }
        return out;
    }

    public long stalenessSum() {
        return stalenessSum.sum();
    }

    /** The evaluations of the whole run, older ones thinned ({@link EvaluationHistory}), oldest first. */
    public List<HistoryPoint> history() {
        return history.points();
    }

    /** The evaluations of the whole run with their sequence numbers. */
    public EvaluationHistory evaluations() {
        return history;
    }

    private Map<String, Long> snapshot(Map<String, LongAdder> m, int bound) {
        Map<String, Long> out = new TreeMap<>();
        m.forEach((k, v) -> out.put(k, v.sum()));
        boundBytes.forEach((k, v) -> out.merge(k, v[bound].getAsLong(), Long::sum));
        return out;
    }
}
