package dev.chorus.node.membership;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.List;

/**
 * Coverage-guided fuzz tests of the two messages of {@code /chorus/membership/1.0.0}, which come from peers not yet
 * admitted: {@link IllegalArgumentException} is the only rejection, a presentation never carries more than
 * {@link MembershipMessages#MAX_CERTIFICATES} certificates, and what decodes encodes to a message that decodes
 * equal. Regression inputs: {@code MembershipMessagesFuzzTestInputs/}.
 */
class MembershipMessagesFuzzTest {

    @FuzzTest
    void presentation(byte[] data) {
        List<byte[]> certificates;
        try {
            certificates = MembershipMessages.parsePresentation(data);
        } catch (IllegalArgumentException rejected) {
            return;
        }
        assertThat(certificates).hasSizeLessThanOrEqualTo(MembershipMessages.MAX_CERTIFICATES);
        List<byte[]> again = MembershipMessages.parsePresentation(MembershipMessages.presentation(certificates));
        assertThat(again).hasSameSizeAs(certificates);
        for (int i = 0; i < again.size(); i++) {
            assertThat(again.get(i)).isEqualTo(certificates.get(i));
        }
    }

    /** The encoder shortens a long reason or detail, so the round trip starts from a verdict it has encoded once. */
    @FuzzTest
    void verdict(byte[] data) {
        MembershipMessages.Verdict v;
        try {
            v = MembershipMessages.parseVerdict(data);
        } catch (IllegalArgumentException rejected) {
            return;
        }
        MembershipMessages.Verdict once = MembershipMessages.parseVerdict(MembershipMessages.verdict(v));
        assertThat(MembershipMessages.parseVerdict(MembershipMessages.verdict(once)))
                .isEqualTo(once);
    }
}
