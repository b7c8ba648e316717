package dev.chorus.gossip.pubsub;

import java.util.Objects;

/**
 * Bounds on one received RPC, checked while decoding so that nothing beyond them is ever built. An RPC
 * that exceeds any of them is rejected whole and its sender penalized. The bounds follow the RPC's protobuf: the
 * frame, its subscriptions and messages, its control message ({@link Control}), and the strings inside them.
 *
 * @param maxRpcBytes the length-prefixed frame (go's default 1 MiB; js accepts up to 4 MiB)
 * @param maxSubscriptions subscription changes per RPC
 * @param maxMessages messages per RPC
 * @param control bounds on the entries of the RPC's control message
 * @param maxTopicBytes length of a topic name
 * @param maxMessageIdBytes length of one message id
 */
public record RpcLimits(
        int maxRpcBytes,
        int maxSubscriptions,
        int maxMessages,
        Control control,
        int maxTopicBytes,
        int maxMessageIdBytes) {
    public static final RpcLimits DEFAULTS =
            new RpcLimits(1 << 20, 1024, 1024, new Control(5000, 5000, 1024, 1024, 64, 5000), 1024, 256);

    /**
     * Bounds on the control message ({@code ControlMessage}), in the order of its fields. Ids count over all entries
     * of one kind in the RPC, since a peer could otherwise split one long list into many short entries.
     *
     * @param maxIHaveIds message ids over all IHAVEs of one RPC (the spec's {@code max_ihave_length}, 5000)
     * @param maxIWantIds message ids over all IWANTs of one RPC
     * @param maxGrafts GRAFT entries per RPC
     * @param maxPrunes PRUNE entries per RPC
     * @param maxPrunePeers PX peers per PRUNE
     * @param maxIDontWantIds message ids over all IDONTWANTs of one RPC
     */
    public record Control(
            int maxIHaveIds, int maxIWantIds, int maxGrafts, int maxPrunes, int maxPrunePeers, int maxIDontWantIds) {
        public Control {
            if (maxIHaveIds < 0
                    || maxIWantIds < 0
                    || maxGrafts < 0
                    || maxPrunes < 0
                    || maxPrunePeers < 0
                    || maxIDontWantIds < 0) {
                throw new IllegalArgumentException("invalid RPC control limits " + this);
            }
        }
    }

    public RpcLimits {
        Objects.requireNonNull(control, "control");
        if (maxRpcBytes < 1024
                || maxSubscriptions < 1
                || maxMessages < 1
                || maxTopicBytes < 1
                || maxMessageIdBytes < 1) {
            throw new IllegalArgumentException("invalid RPC limits " + this);
        }
    }

    public RpcLimits withMaxRpcBytes(int bytes) {
        return new RpcLimits(bytes, maxSubscriptions, maxMessages, control, maxTopicBytes, maxMessageIdBytes);
    }
}
