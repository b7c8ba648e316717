package dev.chorus.gossip.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Coverage-guided fuzz test of the identify message decoder: {@link IllegalArgumentException} is its only rejection,
 * its lists never exceed {@link IdentifyInfo#MAX_ADDRS} and {@link IdentifyInfo#MAX_PROTOCOLS}, and what it accepts
 * re-encodes to a message that decodes equal. Regression inputs: {@code IdentifyFuzzTestInputs/}.
 */
class IdentifyFuzzTest {

    @FuzzTest
    void decode(byte[] data) {
        IdentifyInfo info;
        try {
            info = IdentifyInfo.decode(data);
        } catch (IllegalArgumentException rejected) {
            return;
        }
        assertThat(info.listenAddrs()).hasSizeLessThanOrEqualTo(IdentifyInfo.MAX_ADDRS);
        assertThat(info.protocols()).hasSizeLessThanOrEqualTo(IdentifyInfo.MAX_PROTOCOLS);
        assertThat(IdentifyInfo.decode(info.encode())).isEqualTo(info);
    }
}
