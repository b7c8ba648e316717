package dev.chorus.gossip.pubsub;

import dev.chorus.gossip.identity.PeerId;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.ToDoubleFunction;

/**
 * Peer score parameters that apply to the peer as a whole (gossipsub-v1.1.md, "Overview of New Parameters": the
 * tables of parameters that "apply globally" and that apply "to the peer as a whole"): the topics' parameters and
 * their cap, then one group per peer-wide score term of "The Score Function" (P5 application-specific, P6 IP
 * colocation with a whitelist of CIDR subnets, P7 behaviour penalty), and the decay settings, under the spec's
 * parameter names. Defaults as js-libp2p-gossipsub: P5 weight 10, P6 weight -5 above 10 peers per IP, P7 weight -10
 * with decay 0.2, decay every second to zero below 0.1, scores retained an hour after a disconnect.
 *
 * @param topics per-topic parameters (P1 to P4) by topic; a topic without them does not count
 * @param topicScoreCap the most the topics together add to a score (0: no cap)
 * @param p5 P₅, the application-specific score
 * @param p6 P₆, IP colocation
 * @param p7 P₇, the behaviour penalty
 * @param decay how often counters decay and when a decayed counter counts as zero
 * @param retainScore how long a peer's score is remembered after it disconnects
 */
public record PeerScoreParams(
        Map<String, TopicScoreParams> topics,
        double topicScoreCap,
        AppSpecific p5,
        IpColocation p6,
        BehaviourPenalty p7,
        Decay decay,
        Duration retainScore) {

    /**
     * P₅: a score the application assigns, e.g. to favour its bootstrappers.
     *
     * @param appSpecificScore the application's score of a peer (may be negative)
     * @param appSpecificWeight weight of P₅ (positive)
     */
    public record AppSpecific(ToDoubleFunction<PeerId> appSpecificScore, double appSpecificWeight) {
        public AppSpecific {
            Objects.requireNonNull(appSpecificScore, "appSpecificScore");
            if (appSpecificWeight < 0) {
                throw new IllegalArgumentException("AppSpecificWeight must be >= 0");
            }
        }
    }

    /**
     * P₆: a penalty, squared, for the peers beyond a threshold that share one IP address, against sybils on one host.
     *
     * @param ipColocationFactorWeight weight of P₆ (negative; zero switches P₆ off)
     * @param ipColocationFactorThreshold peers one IP may have before the penalty applies (at least 1)
     * @param ipColocationFactorWhitelist CIDR subnets ({@code 10.0.0.0/8}, {@code ::1/128}) exempt from P₆
     */
    public record IpColocation(
            double ipColocationFactorWeight,
            double ipColocationFactorThreshold,
            List<String> ipColocationFactorWhitelist) {
        public IpColocation {
            ipColocationFactorWhitelist = List.copyOf(ipColocationFactorWhitelist);
            if (ipColocationFactorWeight > 0 || (ipColocationFactorWeight != 0 && ipColocationFactorThreshold < 1)) {
                throw new IllegalArgumentException("IPColocationFactorWeight must be <= 0 and its threshold >= 1");
            }
            for (String cidr : ipColocationFactorWhitelist) {
                Subnet.parse(cidr);
            }
        }

        boolean whitelisted(InetAddress ip) {
            for (String cidr : ipColocationFactorWhitelist) {
                if (Subnet.parse(cidr).contains(ip)) {
                    return true;
                }
            }
            return false;
        }
    }

    /**
     * P₇: a penalty, squared, for misbehaviour the router counts (GRAFTs during backoff, broken IHAVE promises).
     *
     * @param behaviourPenaltyWeight weight of P₇ (negative)
     * @param behaviourPenaltyThreshold penalties tolerated before P₇ applies
     * @param behaviourPenaltyDecay decay factor of the penalty counter per decay interval
     */
    public record BehaviourPenalty(
            double behaviourPenaltyWeight, double behaviourPenaltyThreshold, double behaviourPenaltyDecay) {
        public BehaviourPenalty {
            if (behaviourPenaltyWeight > 0 || !(behaviourPenaltyDecay > 0 && behaviourPenaltyDecay < 1)) {
                throw new IllegalArgumentException("BehaviourPenaltyWeight must be <= 0 and its decay in (0, 1)");
            }
        }
    }

    /**
     * Parameter decay (gossipsub-v1.1.md, "Parameter Decay"): every counter is multiplied by its decay factor once
     * per interval, and set to zero once it falls below {@code decayToZero}, so that old behaviour is forgotten.
     *
     * @param decayInterval time between decays
     * @param decayToZero the value below which a decayed counter becomes zero
     */
    public record Decay(Duration decayInterval, double decayToZero) {
        public Decay {
            if (decayInterval.isNegative() || decayInterval.isZero() || decayToZero <= 0 || decayToZero >= 1) {
                throw new IllegalArgumentException("DecayInterval must be positive and DecayToZero in (0, 1)");
            }
        }
    }

    public PeerScoreParams {
        topics = Map.copyOf(topics);
        if (topicScoreCap < 0) {
            throw new IllegalArgumentException("topic score cap must be >= 0 (0: no cap)");
        }
        Objects.requireNonNull(p5, "p5");
        Objects.requireNonNull(p6, "p6");
        Objects.requireNonNull(p7, "p7");
        Objects.requireNonNull(decay, "decay");
        Objects.requireNonNull(retainScore, "retainScore");
    }

    public static PeerScoreParams defaults() {
        return new PeerScoreParams(
                Map.of(),
                10,
                new AppSpecific(p -> 0, 10),
                new IpColocation(-5, 10, List.of()),
                new BehaviourPenalty(-10, 0, 0.2),
                new Decay(Duration.ofSeconds(1), 0.1),
                Duration.ofHours(1));
    }

    public PeerScoreParams withTopics(Map<String, TopicScoreParams> t) {
        return new PeerScoreParams(t, topicScoreCap, p5, p6, p7, decay, retainScore);
    }

    public PeerScoreParams withAppSpecificScore(ToDoubleFunction<PeerId> score, double weight) {
        return new PeerScoreParams(topics, topicScoreCap, new AppSpecific(score, weight), p6, p7, decay, retainScore);
    }

    /** P6 settings; {@code whitelist} holds CIDR subnets ({@code 10.0.0.0/8}, {@code ::1/128}). */
    public PeerScoreParams withIpColocation(double weight, double threshold, List<String> whitelist) {
        return new PeerScoreParams(
                topics, topicScoreCap, p5, new IpColocation(weight, threshold, whitelist), p7, decay, retainScore);
    }

    public PeerScoreParams withBehaviourPenalty(double weight, double threshold, double decay) {
        return new PeerScoreParams(
                topics, topicScoreCap, p5, p6, new BehaviourPenalty(weight, threshold, decay), this.decay, retainScore);
    }

    /** An IP subnet in CIDR notation; a bare address is a single-host subnet. */
    record Subnet(byte[] network, int prefix) {
        static Subnet parse(String cidr) {
            int slash = cidr.indexOf('/');
            String host = slash < 0 ? cidr : cidr.substring(0, slash);
            if (!host.matches("[0-9a-fA-F:.]+")) {
                throw new IllegalArgumentException("not an IP subnet: " + cidr);
            }
            byte[] addr;
            try {
                addr = InetAddress.getByName(host).getAddress(); // literal only: checked above, no lookup
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException("not an IP subnet: " + cidr);
            }
            int prefix = slash < 0 ? addr.length * 8 : Integer.parseInt(cidr.substring(slash + 1));
            if (prefix < 0 || prefix > addr.length * 8) {
                throw new IllegalArgumentException("bad prefix length in " + cidr);
            }
            return new Subnet(addr, prefix);
        }

        boolean contains(InetAddress ip) {
            byte[] a = ip.getAddress();
            if (a.length != network.length) {
                return false;
            }
            for (int bit = 0; bit < prefix; bit++) {
                int mask = 0x80 >>> (bit % 8);
                if ((a[bit / 8] & mask) != (network[bit / 8] & mask)) {
                    return false;
                }
            }
            return true;
        }
    }
}
