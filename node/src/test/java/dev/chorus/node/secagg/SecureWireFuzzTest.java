package dev.chorus.node.secagg;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.chorus.node.protocol.Dtype;

/**
 * Coverage-guided fuzz test of the {@code /chorus/secagg/3.0.0} frame decoder, which reads what any admitted peer
 * sends: {@link SecureWire.MalformedFrameException} is its only rejection; an OFFER, START or ROUND that decodes
 * encodes back to the same bytes; a SUM holds finite values, within the group's size, and encodes in F32 to a frame
 * that decodes to the same values. Regression inputs: {@code SecureWireFuzzTestInputs/}.
 */
class SecureWireFuzzTest {

    private static final int MAX_MEMBERS = 8;

    @FuzzTest
    void decode(byte[] data) {
        SecureWire.Frame frame;
        try {
            frame = SecureWire.decode(data, MAX_MEMBERS);
        } catch (SecureWire.MalformedFrameException rejected) {
            return;
        }
        switch (frame) {
            case SecureWire.Offer o ->
                assertThat(SecureWire.offer(o.round(), o.terms())).isEqualTo(data);
            case SecureWire.Start s -> {
                assertThat(s.members()).hasSizeLessThanOrEqualTo(MAX_MEMBERS);
                assertThat(SecureWire.start(s.round(), s.terms(), s.members())).isEqualTo(data);
            }
            case SecureWire.Round r ->
                assertThat(SecureWire.round(r.round(), r.message())).isEqualTo(data);
            case SecureWire.Sum s -> {
                assertThat(s.contributors()).isLessThanOrEqualTo(MAX_MEMBERS);
                assertThat(s.values()).isNotEmpty();
                for (float v : s.values()) {
                    assertThat(Float.isFinite(v)).isTrue();
                }
                byte[] again = SecureWire.sum(s.round(), Dtype.F32, s.contributors(), s.sampleCount(), s.values());
                SecureWire.Sum back = (SecureWire.Sum) SecureWire.decode(again, MAX_MEMBERS);
                assertThat(back.values()).isEqualTo(s.values());
                assertThat(back.sampleCount()).isEqualTo(s.sampleCount());
            }
        }
    }
}
