package dev.chorus.aggregation;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Screens the models a gossip node merges one at a time, with no other model to compare them with: each received
 * model {@code x_j} is merged as {@code x_i + w_j clip(x_j - x_i, tau)}, where {@code clip(d, tau) = d min(1,
 * tau/|d|)} shortens a difference longer than the radius {@code tau} to exactly {@code tau}, and {@code w_j} is the
 * sender's standing (1, or {@link Config#suspectWeight()} for a sender whose models keep being clipped hard; a
 * sender excluded for a cool-down is not merged at all). A strategy applies both as one factor on its mixing rate,
 * {@link #admit}, since {@code x_i + s (x_j - x_i)} is the clipped model for {@code s = w_j min(1, tau/|x_j -
 * x_i|)}.
 *
 * <p>Reference: L. He, S. P. Karimireddy, M. Jaggi, "Byzantine-robust Decentralized Learning via ClippedGossip",
 * arXiv:2202.01545, 2022 (self-centred clipping: each node clips its neighbours' models around its own). The paper
 * sets {@code tau} from the honest nodes' spread, which a node does not know; here it adapts to what the node sees:
 * {@link Config#multiplier()} times the median of the last {@link Config#history()} distances it merged. A clipped
 * distance enters that history at {@code tau}, not at its length, so attackers whose models are a minority of those
 * merged move the median at most to a quantile of the honest distances, however far they send: they cannot inflate
 * {@code tau}. Until {@link Config#warmup()} distances are known, the radius is the length of the local model
 * itself, at least {@link Config#coldRadius()}: a cold start clips only what is further from this node than this
 * node is from the origin.
 *
 * <p>A fragment (some coordinates of a model) is clipped to {@code tau sqrt(k/d)} for {@code k} of {@code d}
 * coordinates, and its distance enters the history as {@code |x_j - x_i| sqrt(d/k)}: the length a whole model's
 * difference would have if it were spread evenly over the coordinates, so that fragments and whole models share one
 * history.
 *
 * <p>A model further than {@link Config#hardRatio()} times the radius is dropped, not merged, when {@link
 * Config#dropHard()} is set (the default): clipping alone bounds each merge's pull, but a sender whose every model
 * lies far in one direction, a sign-flipped or scaled copy, then pulls each merge the same way by the whole radius,
 * and the pulls add up faster than local training undoes them. Honest models that far out are rare (the radius is
 * already a multiple of the median distance), so dropping them costs little; a model between the radius and the
 * hard ratio is still merged, clipped.
 *
 * <p>Per peer, the last {@link Config#peerWindow()} models are remembered as hard-clipped or not (longer than
 * {@link Config#hardRatio()} times {@code tau}). With at least {@link Config#suspectAt()} of them hard-clipped the
 * peer's weight drops to {@link Config#suspectWeight()}; with {@link Config#excludeAt()} it is excluded for
 * {@link Config#coolDown()}, doubled for each exclusion before (at most {@link #MAX_COOL_DOWN_DOUBLINGS} times),
 * after which its record starts afresh. Each change of standing is queued as a {@link PeerEvent} for the node to
 * log; counters say how many models were clipped and how many were refused.
 *
 * <p>Given the model's values ({@link #admit(String, int[], float[], double, double, int, long)}), two more rules
 * apply. A model (or fragment) pointing away from the local one, a negative inner product {@code <x_j, x_i>} over its
 * coordinates, is dropped (with {@link Config#dropHard()}), however near it is: members that start from one
 * model and keep averaging stay on the same side of the origin, while an inner-product manipulation (Xie, Koyejo and
 * Gupta, "Fall of Empires", UAI 2019: {@code -eps} times the honest mean) lies on the other side at any {@code eps},
 * often well inside the radius when the honest members are spread. Once the radius is learnt such a model counts
 * against its sender as a hard-clipped one does; before, models near a zero start may point anywhere.
 *
 * <p>A model (or fragment) equal, value for value at the same coordinates, to one of the last {@link
 * #REPEAT_MEMORY} the same peer sent is dropped as a repeat: it carries nothing the node has not merged already, and
 * merging it again pulls the node back toward it once more. An honest peer's model moves
 * between two sends (it trains and merges), so only a peer that does neither repeats itself: a free rider sending
 * the initial model, or a stale replay. Such models lie inside the honest spread, where the radius never catches
 * them, and each merge pulls toward them; as repeats, each is merged once per peer and coordinate set. Repeats are
 * recognised by a 64-bit fingerprint kept per peer, so a sender can make only its own models look repeated. A repeat
 * counts against the peer's standing only when it is also hard-clipped, as any model would: a member whose training
 * has stopped may repeat itself honestly.
 *
 * <p>Not thread-safe; the strategy that owns it calls it on its own thread. Screening a model allocates nothing,
 * except a peer's record and its ring of fingerprints at the peer's first model.
 */
public final class SelfCenteredClipping {

    /**
     * The clipping's parameters: how the radius is set ({@link Radius}), how a peer's record is kept ({@link
     * PeerRecord}), and whether a model beyond the hard ratio is dropped rather than clipped ({@code dropHard};
     * default true).
     */
    public record Config(Radius radius, PeerRecord peers, boolean dropHard) {

        /**
         * @param multiplier the radius is this many times the median of the recent distances; default 3
         * @param history how many recent merged distances make up the median; default 64
         * @param warmup how many distances must be known before the median sets the radius; default 8
         * @param coldRadius the least radius before the warm-up (whole-model units); default 1
         */
        public record Radius(double multiplier, int history, int warmup, double coldRadius) {
            public Radius {
                if (!(multiplier >= 1) || Double.isInfinite(multiplier)) {
                    throw new IllegalArgumentException(
                            "clipping multiplier must be finite and >= 1, got " + multiplier);
                }
                if (history < 1 || warmup < 1 || warmup > history) {
                    throw new IllegalArgumentException(
                            "need 1 <= warmup <= history, got warmup " + warmup + ", history " + history);
                }
                if (!(coldRadius > 0) || Double.isInfinite(coldRadius)) {
                    throw new IllegalArgumentException("cold radius must be finite and > 0, got " + coldRadius);
                }
            }
        }

        /**
         * @param hardRatio a model further than this many times the radius counts as hard-clipped (and is dropped
         *     with {@link Config#dropHard()}); default 2
         * @param window how many of a peer's recent models its record keeps; default 8
         * @param suspectAt hard-clipped models in the window from which the peer's weight drops; default 4
         * @param excludeAt hard-clipped models in the window from which the peer is excluded; default 6
         * @param suspectWeight the weight of a suspect peer's (clipped) difference; default 0.25
         * @param coolDown how long a first exclusion lasts; default 60 s
         */
        public record PeerRecord(
                double hardRatio, int window, int suspectAt, int excludeAt, double suspectWeight, Duration coolDown) {
            public PeerRecord {
                if (!(hardRatio >= 1)) {
                    throw new IllegalArgumentException("hard ratio must be >= 1, got " + hardRatio);
                }
                if (window < 1 || suspectAt < 1 || suspectAt > excludeAt || excludeAt > window) {
                    throw new IllegalArgumentException("need 1 <= suspectAt <= excludeAt <= peerWindow, got "
                            + suspectAt + ", " + excludeAt + ", " + window);
                }
                if (!(suspectWeight > 0 && suspectWeight <= 1)) {
                    throw new IllegalArgumentException("suspect weight must be in (0, 1], got " + suspectWeight);
                }
                Objects.requireNonNull(coolDown, "coolDown");
                if (coolDown.isNegative()) {
                    throw new IllegalArgumentException("cool-down must not be negative, got " + coolDown);
                }
            }
        }

        public Config {
            Objects.requireNonNull(radius, "radius");
            Objects.requireNonNull(peers, "peers");
        }

        public static Config defaults() {
            return new Config(new Radius(3, 64, 8, 1), new PeerRecord(2, 8, 4, 6, 0.25, Duration.ofSeconds(60)), true);
        }

        public Config withMultiplier(double multiplier) {
            return new Config(
                    new Radius(multiplier, radius.history(), radius.warmup(), radius.coldRadius()), peers, dropHard);
        }

        /** The same, with hard-clipped models dropped ({@code true}) or merged clipped to the radius. */
        public Config withDropHard(boolean drop) {
            return new Config(radius, peers, drop);
        }

        public Config withCoolDown(Duration coolDown) {
            return new Config(
                    radius,
                    new PeerRecord(
                            peers.hardRatio(),
                            peers.window(),
                            peers.suspectAt(),
                            peers.excludeAt(),
                            peers.suspectWeight(),
                            coolDown),
                    dropHard);
        }

        public double multiplier() {
            return radius.multiplier();
        }

        public int history() {
            return radius.history();
        }

        public int warmup() {
            return radius.warmup();
        }

        public double coldRadius() {
            return radius.coldRadius();
        }

        public double hardRatio() {
            return peers.hardRatio();
        }

        public int peerWindow() {
            return peers.window();
        }

        public int suspectAt() {
            return peers.suspectAt();
        }

        public int excludeAt() {
            return peers.excludeAt();
        }

        public double suspectWeight() {
            return peers.suspectWeight();
        }

        public Duration coolDown() {
            return peers.coolDown();
        }
    }

    /** A peer's standing. */
    public enum Standing {
        /** Merged with weight 1. */
        TRUSTED,
        /** Merged with {@link Config#suspectWeight()}. */
        SUSPECT,
        /** Not merged until its cool-down ends. */
        EXCLUDED
    }

    /**
     * A change of a peer's standing, for the node to log.
     *
     * @param peer the peer
     * @param standing its new standing
     * @param reason why, in words
     */
    public record PeerEvent(String peer, Standing standing, String reason) {}

    /** A cool-down doubles with each exclusion of the same peer, at most this many times. */
    public static final int MAX_COOL_DOWN_DOUBLINGS = 4;
    /** Fingerprints of a peer's recent models kept to recognise a repeat. */
    public static final int REPEAT_MEMORY = 256;
    /** Events kept for the node to poll; older ones are dropped. */
    private static final int MAX_EVENTS = 64;

    private final Config config;
    private final double[] recent;
    private final double[] sorted;
    private int recentCount;
    private int recentNext;
    private double median = Double.NaN;
    private final Map<String, PeerRecord> peers = new HashMap<>();
    private final ArrayDeque<PeerEvent> events = new ArrayDeque<>();
    private long screened;
    private long clipped;
    private long refused;
    private long dropped;
    private long exclusions;
    private long repeats;
    private long opposedCount;
    private String lastDrop = "";

    public SelfCenteredClipping(Config config) {
        this.config = Objects.requireNonNull(config, "config");
        this.recent = new double[config.history()];
        this.sorted = new double[config.history()];
    }

    public Config config() {
        return config;
    }

    /**
     * The radius for a whole model, given the length of the local model (used only until the warm-up is over).
     */
    public double radius(double localNorm) {
        if (recentCount < config.warmup()) {
            return Math.max(config.coldRadius(), Double.isFinite(localNorm) ? localNorm : 0);
        }
        return Math.max(Double.MIN_NORMAL, config.multiplier() * median);
    }

    /** Whether {@code peer}'s models are refused at {@code nowMillis}; ends a cool-down that is over. */
    public boolean excluded(String peer, long nowMillis) {
        PeerRecord r = peers.get(peer);
        if (r == null || r.standing != Standing.EXCLUDED) {
            return false;
        }
        if (nowMillis < r.excludedUntilMillis) {
            return true;
        }
        r.readmit();
        event(new PeerEvent(peer, Standing.TRUSTED, "cool-down over, readmitted with a fresh record"));
        return false;
    }

    /**
     * Counts a model refused because its sender is {@linkplain #excluded excluded}, and says why for the receipt.
     */
    public String refuse(String peer, long nowMillis) {
        refused++;
        PeerRecord r = peers.get(peer);
        if (r == null) {
            return "peer " + peer + " is excluded";
        }
        return "peer " + peer + " is excluded for another " + Math.max(0, r.excludedUntilMillis - nowMillis) + " ms: "
                + r.reason;
    }

    /**
     * Screens one model (or fragment) from {@code peer} and returns the factor on the strategy's mixing rate that
     * merges {@code x_i + w clip(x_j - x_i, tau)}: in (0, 1], or 0 when the model is not to be merged (its distance
     * is not finite, or is further than {@link Config#hardRatio()} times the radius with {@link Config#dropHard()};
     * {@link #lastDrop} says why). Records the distance (at most the radius) and the peer's hard clip, which may
     * change its standing. The caller checks {@link #excluded} first.
     *
     * @param peer the sender
     * @param distance {@code |x_j - x_i|} over the model's coordinates
     * @param localNorm {@code |x_i|} over the same coordinates
     * @param coordinates {@code k}, how many coordinates the model carries
     * @param dimension {@code d}, the whole model's
     * @param nowMillis the time, for a cool-down
     */
    public double admit(
            String peer, double distance, double localNorm, int coordinates, int dimension, long nowMillis) {
        return screen(new Received(peer, false, 0, 0), distance, localNorm, coordinates, dimension, nowMillis);
    }

    /**
     * As {@link #admit(String, double, double, int, int, long)} for the model {@code values} at {@code indices}
     * (null: the whole model), which is also dropped (0) when it points away from the local model (a negative inner
     * product over its coordinates; {@code localNorm} and {@code distance} give it with the values' own length) or
     * when it repeats, value for value at the same coordinates, one of the last {@link #REPEAT_MEMORY} models {@code
     * peer} sent; it is remembered either way.
     */
    public double admit(
            String peer,
            int[] indices,
            float[] values,
            double distance,
            double localNorm,
            int dimension,
            long nowMillis) {
        // One pass for both the fingerprint and the length.
        double received = 0;
        long h = fingerprintSeed(values.length);
        for (int k = 0; k < values.length; k++) {
            float v = values[k];
            received += (double) v * v;
            h = fingerprintMix(h, indices == null ? k : indices[k], v);
        }
        return screen(
                new Received(peer, true, fingerprintFinish(h), Math.sqrt(received)),
                distance,
                localNorm,
                values.length,
                dimension,
                nowMillis);
    }

    /**
     * What the caller knows of a received model besides its distance: its sender, and, when {@code checked}, the
     * fingerprint of its values (for repeats) and its length over its coordinates (for its direction).
     */
    private record Received(String peer, boolean checked, long fingerprint, double norm) {}

    private double screen(
            Received received, double distance, double localNorm, int coordinates, int dimension, long nowMillis) {
        if (coordinates <= 0) {
            return 1;
        }
        screened++;
        double scale = Math.sqrt((double) dimension / coordinates);
        double tau = radius(localNorm * scale) / scale;
        String peer = received.peer();
        PeerRecord r = peers.computeIfAbsent(peer, p -> new PeerRecord(config.peerWindow()));
        boolean far = !(distance <= config.hardRatio() * tau);
        // <x_j, x_i> = (|x_j|^2 + |x_i|^2 - |x_j - x_i|^2) / 2.
        double inner = (received.norm() * received.norm() + localNorm * localNorm - distance * distance) / 2;
        boolean opposed = received.checked() && inner < 0;
        // Pointing away counts against the sender once the radius is learnt: before, models near a zero start may
        // point anywhere.
        boolean hard = far || (opposed && recentCount >= config.warmup());
        boolean repeat = received.checked() && r.remember(received.fingerprint());
        double factor;
        if (far && (config.dropHard() || !Double.isFinite(distance))) {
            dropped++;
            factor = 0;
            remember(tau * scale);
            lastDrop = Double.isFinite(distance)
                    ? String.format(
                            java.util.Locale.ROOT,
                            "%s's model is %.3g times the clipping radius from this node's (over %s): dropped",
                            peer,
                            distance / tau,
                            config.hardRatio())
                    : peer + "'s model is at a distance that is not finite: dropped";
        } else if (opposed && config.dropHard()) {
            dropped++;
            opposedCount++;
            factor = 0;
            remember(Math.min(distance, tau) * scale);
            lastDrop = String.format(
                    java.util.Locale.ROOT,
                    "%s's model points away from this node's (cosine %.3g): dropped",
                    peer,
                    inner / (received.norm() * localNorm));
        } else if (repeat) {
            // Not merged, so its distance stays out of the history, as it would had it not been sent again.
            repeats++;
            dropped++;
            factor = 0;
            lastDrop = peer + "'s " + (coordinates < dimension ? "fragment" : "model")
                    + " repeats one it sent before, value for value: dropped";
        } else if (!(distance <= tau)) {
            clipped++;
            factor = tau / distance;
            remember(tau * scale);
        } else {
            factor = 1;
            remember(distance * scale);
        }
        record(peer, r, hard, distance / tau, nowMillis);
        return r.standing == Standing.SUSPECT ? factor * config.suspectWeight() : factor;
    }

    /**
     * A 64-bit fingerprint of {@code values} at {@code indices} (null: 0, 1, ...): the raw bits of each value and its
     * coordinate mixed in order, then finalised (the mixing of MurmurHash3's 64-bit finaliser).
     */
    static long fingerprint(int[] indices, float[] values) {
        long h = fingerprintSeed(values.length);
        for (int k = 0; k < values.length; k++) {
            h = fingerprintMix(h, indices == null ? k : indices[k], values[k]);
        }
        return fingerprintFinish(h);
    }

    private static long fingerprintSeed(int length) {
        return 0x243F6A8885A308D3L ^ length;
    }

    private static long fingerprintMix(long h, long coordinate, float value) {
        h = (h ^ (coordinate << 32 | (Float.floatToRawIntBits(value) & 0xFFFFFFFFL))) * 0x9E3779B97F4A7C15L;
        return h ^ (h >>> 29);
    }

    private static long fingerprintFinish(long h) {
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        h *= 0xC4CEB9FE1A85EC53L;
        return h ^ (h >>> 33);
    }

    /** Why the last model {@link #admit} returned 0 for was dropped. */
    public String lastDrop() {
        return lastDrop;
    }

    private void record(String peer, PeerRecord r, boolean hard, double ratio, long nowMillis) {
        int hardCount = r.add(hard);
        if (hardCount >= config.excludeAt()) {
            int doublings = Math.min(MAX_COOL_DOWN_DOUBLINGS, r.exclusions);
            long coolDown = config.coolDown().toMillis() << doublings;
            r.exclude(
                    nowMillis + coolDown,
                    hardCount + " of its last " + config.peerWindow()
                            + " models were over " + config.hardRatio()
                            + " times the clipping radius or pointed away from this node's (the last "
                            + String.format(java.util.Locale.ROOT, "%.3g", ratio) + " times the radius); excluded for "
                            + coolDown + " ms");
            exclusions++;
            event(new PeerEvent(peer, Standing.EXCLUDED, r.reason));
        } else if (hardCount >= config.suspectAt() && r.standing == Standing.TRUSTED) {
            r.standing = Standing.SUSPECT;
            event(new PeerEvent(
                    peer,
                    Standing.SUSPECT,
                    hardCount + " of its last " + config.peerWindow()
                            + " models were over " + config.hardRatio()
                            + " times the clipping radius or pointed away from this node's; weight "
                            + config.suspectWeight()));
        } else if (hardCount < config.suspectAt() && r.standing == Standing.SUSPECT) {
            r.standing = Standing.TRUSTED;
            event(new PeerEvent(
                    peer,
                    Standing.TRUSTED,
                    "fewer than " + config.suspectAt() + " of its last " + config.peerWindow()
                            + " models were hard-clipped"));
        }
    }

    private void remember(double distance) {
        recent[recentNext] = distance;
        recentNext = (recentNext + 1) % recent.length;
        recentCount = Math.min(recent.length, recentCount + 1);
        System.arraycopy(recent, 0, sorted, 0, recentCount);
        Arrays.sort(sorted, 0, recentCount);
        median = sorted[recentCount / 2];
    }

    private void event(PeerEvent e) {
        if (events.size() == MAX_EVENTS) {
            events.pollFirst();
        }
        events.addLast(e);
    }

    /** The oldest change of standing not yet polled, or {@code null}. */
    public PeerEvent pollEvent() {
        return events.pollFirst();
    }

    /** A peer's standing as last recorded (a cool-down that is over ends at its next {@link #excluded} check). */
    public Standing standing(String peer) {
        PeerRecord r = peers.get(peer);
        return r == null ? Standing.TRUSTED : r.standing;
    }

    /** Peers excluded at {@code nowMillis}. */
    public int excludedPeers(long nowMillis) {
        int n = 0;
        for (PeerRecord r : peers.values()) {
            if (r.standing == Standing.EXCLUDED && nowMillis < r.excludedUntilMillis) {
                n++;
            }
        }
        return n;
    }

    /** Models screened by {@link #admit}. */
    public long screened() {
        return screened;
    }

    /** Models whose difference was shortened to the radius. */
    public long clipped() {
        return clipped;
    }

    /**
     * Models dropped: further than {@link Config#hardRatio()} times the radius or pointing away from the local model
     * with {@link Config#dropHard()}, at a distance that is not finite, or repeats of one the sender sent before.
     */
    public long dropped() {
        return dropped;
    }

    /** Models dropped as repeats of one their sender sent before (counted in {@link #dropped} too). */
    public long repeats() {
        return repeats;
    }

    /** Models dropped for pointing away from the local model (counted in {@link #dropped} too). */
    public long opposed() {
        return opposedCount;
    }

    /** Models refused because their sender was excluded. */
    public long refused() {
        return refused;
    }

    /** Exclusions so far, over all peers. */
    public long exclusions() {
        return exclusions;
    }

    /** {@code |a - b|} over all coordinates, in double precision. */
    public static double distance(float[] local, float[] values) {
        double s = 0;
        for (int i = 0; i < values.length; i++) {
            double d = (double) values[i] - local[i];
            s += d * d;
        }
        return Math.sqrt(s);
    }

    /** {@code |a - b|} over the coordinates {@code indices} of {@code local}, {@code values[k]} at {@code indices[k]}. */
    public static double distance(float[] local, int[] indices, float[] values) {
        double s = 0;
        for (int k = 0; k < indices.length; k++) {
            double d = (double) values[k] - local[indices[k]];
            s += d * d;
        }
        return Math.sqrt(s);
    }

    /** {@code |x|} over all coordinates. */
    public static double norm(float[] x) {
        double s = 0;
        for (float v : x) {
            s += (double) v * v;
        }
        return Math.sqrt(s);
    }

    /** {@code |x|} over the coordinates {@code indices}. */
    public static double norm(float[] x, int[] indices) {
        double s = 0;
        for (int i : indices) {
            s += (double) x[i] * x[i];
        }
        return Math.sqrt(s);
    }

    private static final class PeerRecord {
        private final boolean[] hard;
        private int count;
        private int next;
        private int hardCount;
        private Standing standing = Standing.TRUSTED;
        private long excludedUntilMillis;
        private int exclusions;
        private String reason = "";
        /** Fingerprints of the peer's recent models, a ring of {@link #REPEAT_MEMORY} allocated at the first. */
        private long[] fingerprints;

        private int fingerprintCount;
        private int fingerprintNext;

        PeerRecord(int window) {
            this.hard = new boolean[window];
        }

        /** Whether {@code fingerprint} is among the remembered ones; adds it when it is not. */
        boolean remember(long fingerprint) {
            if (fingerprints == null) {
                fingerprints = new long[REPEAT_MEMORY];
            }
            for (int i = 0; i < fingerprintCount; i++) {
                if (fingerprints[i] == fingerprint) {
                    return true;
                }
            }
            fingerprints[fingerprintNext] = fingerprint;
            fingerprintNext = (fingerprintNext + 1) % fingerprints.length;
            fingerprintCount = Math.min(fingerprints.length, fingerprintCount + 1);
            return false;
        }

        /** Adds one model's verdict; returns the hard-clipped ones in the window. */
        int add(boolean isHard) {
            if (count == hard.length && hard[next]) {
                hardCount--;
            }
            hard[next] = isHard;
            if (isHard) {
                hardCount++;
            }
            next = (next + 1) % hard.length;
            count = Math.min(hard.length, count + 1);
            return hardCount;
        }

        void exclude(long untilMillis, String why) {
            standing = Standing.EXCLUDED;
            excludedUntilMillis = untilMillis;
            exclusions++;
            reason = why;
        }

        void readmit() {
            standing = Standing.TRUSTED;
            Arrays.fill(hard, false);
            count = 0;
            next = 0;
            hardCount = 0;
        }
    }
}
