package dev.chorus.gossip.pubsub;

/** A received pubsub RPC that exceeds one of the {@link RpcLimits}; the whole RPC is rejected. */
public final class RpcLimitException extends InvalidRpcException {
    public RpcLimitException(String message) {
        super(message);
    }
}
