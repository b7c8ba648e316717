package dev.chorus.gossip.pubsub;

/**
 * Bounds on one received RPC, checked while decoding so that nothing beyond them is ever built. An RPC
 * that exceeds any of them is rejected whole and its sender penalized.
 *
 * @param maxRpcBytes the length-prefixed frame (go's default 1 MiB; js accepts up to 4 MiB)
 * @param maxSubscriptions subscription changes per RPC
 * @param maxMessages messages per RPC
 * @param maxIHaveIds message ids over all IHAVEs of one RPC (the spec's {@code max_ihave_length}, 5000)
 * @param maxIWantIds message ids over all IWANTs of one RPC
 * @param maxGrafts GRAFT entries per RPC
 * @param maxPrunes PRUNE entries per RPC
 * @param maxPrunePeers PX peers per PRUNE
 * @param maxIDontWantIds message ids over all IDONTWANTs of one RPC
 * @param maxTopicBytes length of a topic name
 * @param maxMessageIdBytes length of one message id
 */
public record RpcLimits(
        int maxRpcBytes,
        int maxSubscriptions,
        int maxMessages,
        int maxIHaveIds,
        int maxIWantIds,
        int maxGrafts,
        int maxPrunes,
        int maxPrunePeers,
        int maxIDontWantIds,
        int maxTopicBytes,
        int maxMessageIdBytes) {
    public static final RpcLimits DEFAULTS =
            new RpcLimits(1 << 20, 1024, 1024, 5000, 5000, 1024, 1024, 64, 5000, 1024, 256);

    public RpcLimits {
        if (maxRpcBytes < 1024
                || maxSubscriptions < 1
                || maxMessages < 1
                || maxIHaveIds < 0
                || maxIWantIds < 0
                || maxGrafts < 0
                || maxPrunes < 0
                || maxPrunePeers < 0
                || maxIDontWantIds < 0
                || maxTopicBytes < 1
                || maxMessageIdBytes < 1) {
            throw new IllegalArgumentException("invalid RPC limits " + this);
        }
    }

    public RpcLimits withMaxRpcBytes(int bytes) {
        return new RpcLimits(
                bytes,
                maxSubscriptions,
                maxMessages,
                maxIHaveIds,
                maxIWantIds,
                maxGrafts,
                maxPrunes,
                maxPrunePeers,
                maxIDontWantIds,
                maxTopicBytes,
                maxMessageIdBytes);
    }
}
