package dev.chorus.gossip.record;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Coverage-guided fuzz test of the signed peer record decoder (the bytes a peer sends in identify and in
 * gossipsub's peer exchange): {@link RecordException} is its only rejection, an opened record lists at most {@link
 * PeerRecord#MAX_ADDRESSES} addresses and names its signer, and its envelope re-encodes to one that opens equal.
 * Regression inputs: {@code PeerRecordFuzzTestInputs/}, among them a valid record.
 */
class PeerRecordFuzzTest {

    @FuzzTest
    void open(byte[] data) {
        SignedEnvelope envelope;
        PeerRecord record;
        try {
            envelope = SignedEnvelope.decode(data);
            record = PeerRecord.open(envelope);
        } catch (RecordException rejected) {
            return;
        }
        assertThat(record.addresses()).hasSizeLessThanOrEqualTo(PeerRecord.MAX_ADDRESSES);
        assertThat(record.peerId()).isEqualTo(envelope.publicKey().toPeerId());
        assertThat(PeerRecord.open(envelope.encode())).isEqualTo(record);
    }
}
