package dev.chorus.node.membership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.gossip.encoding.LengthPrefixed;
import dev.chorus.gossip.encoding.ProtobufWriter;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The two messages of /chorus/membership/1.0.0: round trips, and what a hostile peer may send instead. */
class MembershipMessagesTest {

    @Test
    void aPresentationAndAVerdictRoundTrip() {
        List<byte[]> certs = List.of(new byte[] {1, 2, 3}, new byte[700]);
        List<byte[]> back = MembershipMessages.parsePresentation(MembershipMessages.presentation(certs));
        assertThat(back).hasSize(2);
        assertThat(back.get(0)).containsExactly(1, 2, 3);
        assertThat(back.get(1)).hasSize(700);
        var v = new MembershipMessages.Verdict(false, "unknown-ca", "issuer CN=x is not a roster CA");
        assertThat(MembershipMessages.parseVerdict(MembershipMessages.verdict(v)))
                .isEqualTo(v);
        var ok = new MembershipMessages.Verdict(true, null, null);
        assertThat(MembershipMessages.parseVerdict(MembershipMessages.verdict(ok)))
                .isEqualTo(ok);
    }

    @Test
    void morePresentedCertificatesThanTheBoundAreRefused() {
        ProtobufWriter w = new ProtobufWriter();
        for (int i = 0; i <= MembershipMessages.MAX_CERTIFICATES; i++) {
            w.bytes(1, new byte[] {(byte) i});
        }
        assertThatThrownBy(() -> MembershipMessages.parsePresentation(LengthPrefixed.encode(w.toByteArray())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("more than 4 certificates");
    }

    @Test
    void anAnnouncedLengthOverTheBoundIsRefusedBeforeAnythingIsCopied() {
        byte[] prefixOnly = dev.chorus.gossip.encoding.Varint.encode(MembershipMessages.MAX_PRESENTATION_BYTES + 1L);
        assertThatThrownBy(() -> MembershipMessages.parsePresentation(prefixOnly))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("exceeds");
    }

    @Test
    void truncatedAndTrailingBytesAreRefused() {
        byte[] framed = MembershipMessages.presentation(List.of(new byte[10]));
        assertThatThrownBy(() -> MembershipMessages.parsePresentation(Arrays.copyOf(framed, framed.length - 1)))
                .hasMessageContaining("truncated");
        assertThatThrownBy(() -> MembershipMessages.parsePresentation(Arrays.copyOf(framed, framed.length + 1)))
                .hasMessageContaining("after the message");
        assertThatThrownBy(() -> MembershipMessages.parseVerdict(new byte[0]))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** Random bytes never get past the parsers with anything but IllegalArgumentException. */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void randomBytesFailCleanly(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < 500; i++) {
            byte[] junk = new byte[r.nextInt(0, 300)];
            r.nextBytes(junk);
            if (r.nextBoolean() && junk.length > 2) {
                junk[0] = (byte) (junk.length - 1); // a plausible prefix, then junk protobuf
            }
            for (Runnable parse : List.<Runnable>of(
                    () -> MembershipMessages.parsePresentation(junk), () -> MembershipMessages.parseVerdict(junk))) {
                try {
                    parse.run();
                } catch (IllegalArgumentException expected) {
                    // named, one line
                } catch (RuntimeException e) {
                    throw new AssertionError("seed " + seed + ", case " + i + ": " + e, e);
                }
            }
        }
    }
}
