package dev.chorus.gossip.multiaddr;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;

/**
 * Coverage-guided fuzz tests of the multiaddr text and binary decoders: {@link MultiaddrException} is the only
 * rejection, and whatever is accepted survives both encodings unchanged. Regression inputs: {@code
 * MultiaddrFuzzTestInputs/}.
 */
class MultiaddrFuzzTest {

    @FuzzTest
    void text(byte[] data) {
        String text = new String(data, StandardCharsets.UTF_8);
        Multiaddr a;
        try {
            a = Multiaddr.parse(text);
        } catch (MultiaddrException rejected) {
            return;
        }
        assertRoundTrips(a);
    }

    @FuzzTest
    void binary(byte[] data) {
        Multiaddr a;
        try {
            a = Multiaddr.fromBytes(data);
        } catch (MultiaddrException rejected) {
            return;
        }
        assertThat(data.length).isLessThanOrEqualTo(Multiaddr.MAX_LENGTH);
        assertThat(a.toBytes()).isEqualTo(data);
        assertRoundTrips(a);
    }

    /** The binary form decodes to the same address, and so does the text form where it is not over the length cap. */
    private static void assertRoundTrips(Multiaddr a) {
        assertThat(Multiaddr.fromBytes(a.toBytes())).isEqualTo(a);
        String text = a.toString();
        if (text.length() <= Multiaddr.MAX_LENGTH) {
            assertThat(Multiaddr.parse(text)).isEqualTo(a);
        }
    }
}
