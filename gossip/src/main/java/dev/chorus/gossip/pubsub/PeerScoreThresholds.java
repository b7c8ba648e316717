package dev.chorus.gossip.pubsub;

/**
 * Score thresholds (gossipsub-v1.1.md, "Score Thresholds"); defaults as js-libp2p-gossipsub and the
 * shared checklist: gossip -10, publish -50, graylist -80, accept PX 10, opportunistic graft 20.
 */
public record PeerScoreThresholds(
        double gossipThreshold,
        double publishThreshold,
        double graylistThreshold,
        double acceptPXThreshold,
        double opportunisticGraftThreshold) {
    public static final PeerScoreThresholds DEFAULTS = new PeerScoreThresholds(-10, -50, -80, 10, 20);

    public PeerScoreThresholds {
        if (!(gossipThreshold <= 0 && publishThreshold <= gossipThreshold && graylistThreshold < publishThreshold)) {
            throw new IllegalArgumentException("need graylist < publish <= gossip <= 0");
        }
        if (acceptPXThreshold < 0 || opportunisticGraftThreshold < 0) {
            throw new IllegalArgumentException("accept-PX and opportunistic-graft thresholds must be >= 0");
        }
    }
}
