package dev.chorus.testnet.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.learning.json.JsonReader;
import org.junit.jupiter.api.Test;

/** The members a scenario reads from {@code /api/status} and {@code /api/peers}, as the node writes them. */
class NodeStatusTest {

    @Test
    void readsVersionAccuracyPeersExchangesAndPerPeerMerges() {
        NodeStatus s = NodeStatus.parse(
                JsonReader.parseObject("{\"modelVersion\": 522, \"accuracy\": 0.964, \"peerCount\": 3,"
                        + " \"averaging\": {\"exchanges\": 40, \"exchangeFailures\": 2, \"exchangesAbandoned\": 1}}"),
                JsonReader.parseObject("{\"count\": 2, \"peers\": [{\"peerId\": \"A\", \"merged\": 7,"
                        + " \"exchangeSeconds\": 1.5}, {\"peerId\": \"B\", \"merged\": 0}]}"));
        assertThat(s.modelVersion()).isEqualTo(522);
        assertThat(s.accuracy()).isEqualTo(0.964);
        assertThat(s.peerCount()).isEqualTo(3);
        assertThat(s.exchanges()).isEqualTo(40);
        assertThat(s.exchangeFailures()).isEqualTo(2);
        assertThat(s.abandoned()).isEqualTo(1);
        assertThat(s.mergedByPeer()).containsEntry("A", 7L).containsEntry("B", 0L);
        assertThat(s.slowestExchangeSeconds()).isEqualTo(1.5);
    }

    @Test
    void anAccuracyNotYetMeasuredIsNaN() {
        NodeStatus s = NodeStatus.parse(
                JsonReader.parseObject("{\"modelVersion\": 0, \"accuracy\": null}"), JsonReader.parseObject("{}"));
        assertThat(s.accuracy()).isNaN();
        assertThat(s.mergedByPeer()).isEmpty();
        assertThat(s.peerCount()).isZero();
    }
}
