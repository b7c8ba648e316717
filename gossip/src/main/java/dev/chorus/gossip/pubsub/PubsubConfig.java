package dev.chorus.gossip.pubsub;

import java.util.List;

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
        return new PubsubConfig(
                p,
                limits,
                signaturePolicy,
                messageIdFunction,
                scoreParams,
                thresholds,
                protocols,
                maxOutboundQueueBytes);
    }

    public PubsubConfig withLimits(RpcLimits l) {
        return new PubsubConfig(
                params,
                l,
                signaturePolicy,
                messageIdFunction,
                scoreParams,
                thresholds,
                protocols,
                maxOutboundQueueBytes);
    }

    /** {@code StrictNoSign} with SHA-256 message ids. */
    public PubsubConfig withStrictNoSign() {
        return new PubsubConfig(
                params,
                limits,
                SignaturePolicy.STRICT_NO_SIGN,
                MessageIdFunction.SHA256_OF_DATA,
                scoreParams,
                thresholds,
                protocols,
                maxOutboundQueueBytes);
    }

    public PubsubConfig withMessageIdFunction(MessageIdFunction f) {
        return new PubsubConfig(
                params, limits, signaturePolicy, f, scoreParams, thresholds, protocols, maxOutboundQueueBytes);
    }

    public PubsubConfig withScore(PeerScoreParams s, PeerScoreThresholds t) {
        return new PubsubConfig(
                params, limits, signaturePolicy, messageIdFunction, s, t, protocols, maxOutboundQueueBytes);
    }

    public PubsubConfig withProtocols(List<PubsubProtocol> p) {
        return new PubsubConfig(
                params, limits, signaturePolicy, messageIdFunction, scoreParams, thresholds, p, maxOutboundQueueBytes);
    }
}
