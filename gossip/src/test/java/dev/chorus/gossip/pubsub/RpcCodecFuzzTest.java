package dev.chorus.gossip.pubsub;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Coverage-guided fuzz test of the gossipsub RPC decoder under small limits, so that the fuzzer reaches every one of
 * them: {@link InvalidRpcException} (and its {@link RpcLimitException}) is the only rejection, no decoded list exceeds
 * its limit, and an accepted RPC re-encodes to bytes that decode to the same encoding. Regression inputs: {@code
 * RpcCodecFuzzTestInputs/}.
 */
class RpcCodecFuzzTest {
    private static final RpcLimits LIMITS = new RpcLimits(4096, 4, 4, new RpcLimits.Control(8, 8, 4, 4, 2, 8), 64, 32);
    private static final RpcCodec CODEC = new RpcCodec(LIMITS);

    @FuzzTest
    void decode(byte[] data) {
        Rpc rpc;
        try {
            rpc = CODEC.decode(data);
        } catch (InvalidRpcException rejected) {
            return;
        }
        assertWithinLimits(rpc);
        byte[] encoded = RpcCodec.encode(rpc);
        assertThat(RpcCodec.encode(CODEC.decode(encoded))).isEqualTo(encoded);
    }

    private static void assertWithinLimits(Rpc rpc) {
        assertThat(rpc.subscriptions()).hasSizeLessThanOrEqualTo(LIMITS.maxSubscriptions());
        assertThat(rpc.messages()).hasSizeLessThanOrEqualTo(LIMITS.maxMessages());
        rpc.subscriptions().forEach(s -> assertThat(s.topic().length()).isLessThanOrEqualTo(LIMITS.maxTopicBytes()));
        rpc.messages().forEach(m -> assertThat(m.topic().length()).isLessThanOrEqualTo(LIMITS.maxTopicBytes()));
        Rpc.Control c = rpc.control();
        if (c == null) {
            return;
        }
        RpcLimits.Control max = LIMITS.control();
        assertThat(c.ihave().stream().mapToInt(i -> i.messageIds().size()).sum())
                .isLessThanOrEqualTo(max.maxIHaveIds());
        assertThat(c.iwant().stream().mapToInt(i -> i.messageIds().size()).sum())
                .isLessThanOrEqualTo(max.maxIWantIds());
        assertThat(c.idontwant().stream().mapToInt(i -> i.messageIds().size()).sum())
                .isLessThanOrEqualTo(max.maxIDontWantIds());
        assertThat(c.graft()).hasSizeLessThanOrEqualTo(max.maxGrafts());
        assertThat(c.prune()).hasSizeLessThanOrEqualTo(max.maxPrunes());
        c.prune().forEach(p -> assertThat(p.peers()).hasSizeLessThanOrEqualTo(max.maxPrunePeers()));
        c.ihave().forEach(i -> i.messageIds()
                .forEach(id -> assertThat(id.raw().length).isLessThanOrEqualTo(LIMITS.maxMessageIdBytes())));
    }
}
