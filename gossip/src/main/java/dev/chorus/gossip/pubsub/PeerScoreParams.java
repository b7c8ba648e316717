package dev.chorus.gossip.pubsub;

import dev.chorus.gossip.identity.PeerId;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.ToDoubleFunction;

/**
 * Peer score parameters that apply to the peer as a whole (gossipsub-v1.1.md): the topics' parameters and
 * their cap, P5 application-specific, P6 IP colocation (with a whitelist of CIDR subnets), P7 behaviour
 * penalty, and the decay settings. Defaults as js-libp2p-gossipsub: P5 weight 10, P6 weight -5 above 10
 * peers per IP, P7 weight -10 with decay 0.2, decay every second to zero below 0.1, scores retained an
 * hour after a disconnect.
 */
public record PeerScoreParams(
        Map<String, TopicScoreParams> topics,
        double topicScoreCap,
        ToDoubleFunction<PeerId> appSpecificScore,
        double appSpecificWeight,
        double ipColocationFactorWeight,
        double ipColocationFactorThreshold,
        List<String> ipColocationFactorWhitelist,
        double behaviourPenaltyWeight,
        double behaviourPenaltyThreshold,
        double behaviourPenaltyDecay,
        Duration decayInterval,
        double decayToZero,
        Duration retainScore) {

    public PeerScoreParams {
        topics = Map.copyOf(topics);
        ipColocationFactorWhitelist = List.copyOf(ipColocationFactorWhitelist);
        if (topicScoreCap < 0) {
            throw new IllegalArgumentException("topic score cap must be >= 0 (0: no cap)");
        }
        if (appSpecificWeight < 0) {
            throw new IllegalArgumentException("AppSpecificWeight must be >= 0");
        }
        if (ipColocationFactorWeight > 0 || (ipColocationFactorWeight != 0 && ipColocationFactorThreshold < 1)) {
            throw new IllegalArgumentException("IPColocationFactorWeight must be <= 0 and its threshold >= 1");
        }
        if (behaviourPenaltyWeight > 0 || !(behaviourPenaltyDecay > 0 && behaviourPenaltyDecay < 1)) {
            throw new IllegalArgumentException("BehaviourPenaltyWeight must be <= 0 and its decay in (0, 1)");
        }
        if (decayInterval.isNegative() || decayInterval.isZero() || decayToZero <= 0 || decayToZero >= 1) {
            throw new IllegalArgumentException("DecayInterval must be positive and DecayToZero in (0, 1)");
        }
        for (String cidr : ipColocationFactorWhitelist) {
            Subnet.parse(cidr);
        }
    }

    public static PeerScoreParams defaults() {
        return new PeerScoreParams(
                Map.of(),
                10,
                p -> 0,
                10,
                -5,
                10,
                List.of(),
                -10,
                0,
                0.2,
                Duration.ofSeconds(1),
                0.1,
                Duration.ofHours(1));
    }

    public PeerScoreParams withTopics(Map<String, TopicScoreParams> t) {
        return edit(c -> c.topics = t);
    }

    public PeerScoreParams withAppSpecificScore(ToDoubleFunction<PeerId> score, double weight) {
        return edit(c -> {
            c.appSpecificScore = score;
            c.appSpecificWeight = weight;
        });
    }

    /** P6 settings; {@code whitelist} holds CIDR subnets ({@code 10.0.0.0/8}, {@code ::1/128}). */
    public PeerScoreParams withIpColocation(double weight, double threshold, List<String> whitelist) {
        return edit(c -> {
            c.ipColocationFactorWeight = weight;
            c.ipColocationFactorThreshold = threshold;
            c.ipColocationFactorWhitelist = whitelist;
        });
    }

    public PeerScoreParams withBehaviourPenalty(double weight, double threshold, double decay) {
        return edit(c -> {
            c.behaviourPenaltyWeight = weight;
            c.behaviourPenaltyThreshold = threshold;
            c.behaviourPenaltyDecay = decay;
        });
    }

    /** These parameters with {@code change} applied to a copy of their components, validated again. */
    private PeerScoreParams edit(Consumer<Copy> change) {
        Copy copy = new Copy();
        change.accept(copy);
        return copy.build();
    }

    /** The components of these parameters, to change in place; the one place that calls the canonical constructor. */
    private final class Copy {
        Map<String, TopicScoreParams> topics = topics();
        double topicScoreCap = topicScoreCap();
        ToDoubleFunction<PeerId> appSpecificScore = appSpecificScore();
        double appSpecificWeight = appSpecificWeight();
        double ipColocationFactorWeight = ipColocationFactorWeight();
        double ipColocationFactorThreshold = ipColocationFactorThreshold();
        List<String> ipColocationFactorWhitelist = ipColocationFactorWhitelist();
        double behaviourPenaltyWeight = behaviourPenaltyWeight();
        double behaviourPenaltyThreshold = behaviourPenaltyThreshold();
        double behaviourPenaltyDecay = behaviourPenaltyDecay();
        Duration decayInterval = decayInterval();
        double decayToZero = decayToZero();
        Duration retainScore = retainScore();

        PeerScoreParams build() {
            return new PeerScoreParams(
                    topics,
                    topicScoreCap,
                    appSpecificScore,
                    appSpecificWeight,
                    ipColocationFactorWeight,
                    ipColocationFactorThreshold,
                    ipColocationFactorWhitelist,
                    behaviourPenaltyWeight,
                    behaviourPenaltyThreshold,
                    behaviourPenaltyDecay,
                    decayInterval,
                    decayToZero,
                    retainScore);
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
