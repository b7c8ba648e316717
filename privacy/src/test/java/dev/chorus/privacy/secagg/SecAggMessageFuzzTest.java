package dev.chorus.privacy.secagg;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Coverage-guided fuzz test of the secure-aggregation message decoder: {@link SecAggException} is its only rejection
 * (every declared length is checked before anything is allocated), and an accepted message encodes back to the same
 * bytes; an abort's reason, decoded leniently from UTF-8, encodes to bytes that decode and encode unchanged.
 * Regression inputs: {@code SecAggMessageFuzzTestInputs/}.
 */
class SecAggMessageFuzzTest {

    @FuzzTest
    void decode(byte[] data) {
        SecAggMessage m;
        try {
            m = SecAggMessage.decode(data);
        } catch (SecAggException rejected) {
            return;
        }
        assertThat(m.roundId().length).isLessThanOrEqualTo(SecAggMessage.MAX_ROUND_ID);
        byte[] encoded = m.encode();
        if (!(m instanceof SecAggMessage.Abort)) {
            assertThat(encoded).isEqualTo(data);
        }
        assertThat(SecAggMessage.decode(encoded).encode()).isEqualTo(encoded);
    }
}
