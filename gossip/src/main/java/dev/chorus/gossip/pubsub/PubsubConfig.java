package dev.chorus.gossip.pubsub;

import java.util.List;
import java.util.function.Consumer;

/**
 * Everything that configures pubsub on a node, validated once at construction.
 *
 * @param params router parameters ({@code D}, heartbeat, caches, gossip, limits)
 * @param limits bounds on every received RPC
 * @param signaturePolicy {@code StrictSign} (default) or {@code StrictNoSign}
 * @param messageIdFunction go's {@code from ++ seqno} (default) or a content hash
 * @param scoreParams peer scoring v1.1 (P5 to P7 by default; topics opt in with their parameters)
 * @param thresholds gossip, publish, graylist, accept-PX and opportunistic-graft thresholds
 * @param protocols pubsub protocols offered and accepted, in preference order
 * @param maxOutboundQueueBytes RPC bytes queued per peer while its stream drains; more are dropped
 */
public record PubsubConfig(
        GossipsubParams params,
        RpcLimits limits,
        SignaturePolicy signaturePolicy,
        MessageIdFunction messageIdFunction,
        PeerScoreParams scoreParams,
        PeerScoreThresholds thresholds,
        List<PubsubProtocol> protocols,
        int maxOutboundQueueBytes) {

    public PubsubConfig {
        protocols = List.copyOf(protocols);
        if (protocols.isEmpty()) {
            throw new IllegalArgumentException("at least one pubsub protocol is needed");
        }
        if (signaturePolicy == SignaturePolicy.STRICT_NO_SIGN
                && messageIdFunction == MessageIdFunction.FROM_AND_SEQNO) {
            throw new IllegalArgumentException(
                    "StrictNoSign messages have no from or seqno: use a content-based message id function");
        }
        if (maxOutboundQueueBytes < limits.maxRpcBytes()) {
            throw new IllegalArgumentException("the outbound queue must hold at least one RPC");
        }
    }

    public static PubsubConfig defaults() {
        return new PubsubConfig(
                GossipsubParams.defaults(),
                RpcLimits.DEFAULTS,
                SignaturePolicy.STRICT_SIGN,
                MessageIdFunction.FROM_AND_SEQNO,
                PeerScoreParams.defaults(),
                PeerScoreThresholds.DEFAULTS,
                PubsubProtocol.PREFERENCE,
                16 << 20);
    }

    public PubsubConfig withParams(GossipsubParams p) {
        return edit(c -> c.params = p);
    }

    public PubsubConfig withLimits(RpcLimits l) {
        return edit(c -> c.limits = l);
    }

    /** {@code StrictNoSign} with SHA-256 message ids. */
    public PubsubConfig withStrictNoSign() {
        return edit(c -> {
            c.signaturePolicy = SignaturePolicy.STRICT_NO_SIGN;
            c.messageIdFunction = MessageIdFunction.SHA256_OF_DATA;
        });
    }

    public PubsubConfig withMessageIdFunction(MessageIdFunction f) {
        return edit(c -> c.messageIdFunction = f);
    }

    public PubsubConfig withScore(PeerScoreParams s, PeerScoreThresholds t) {
        return edit(c -> {
            c.scoreParams = s;
            c.thresholds = t;
        });
    }

    public PubsubConfig withProtocols(List<PubsubProtocol> p) {
        return edit(c -> c.protocols = p);
    }

    /** This config with {@code change} applied to a copy of its components, validated again. */
    private PubsubConfig edit(Consumer<Copy> change) {
        Copy copy = new Copy();
        change.accept(copy);
        return copy.build();
    }

    /** The components of this config, to change in place; the one place that calls the canonical constructor. */
    private final class Copy {
        GossipsubParams params = params();
        RpcLimits limits = limits();
        SignaturePolicy signaturePolicy = signaturePolicy();
        MessageIdFunction messageIdFunction = messageIdFunction();
        PeerScoreParams scoreParams = scoreParams();
        PeerScoreThresholds thresholds = thresholds();
        List<PubsubProtocol> protocols = protocols();
        int maxOutboundQueueBytes = maxOutboundQueueBytes();

        PubsubConfig build() {
            return new PubsubConfig(
                    params,
                    limits,
                    signaturePolicy,
                    messageIdFunction,
                    scoreParams,
                    thresholds,
                    protocols,
                    maxOutboundQueueBytes);
        }
    }
}
