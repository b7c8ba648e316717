package dev.chorus.privacy.membership;

import java.util.Objects;

/**
 * The outcome of checking a peer's certificate chain against the roster.
 *
 * @param admitted whether the peer may join
 * @param reason why it was refused; null when admitted
 * @param detail one line for logs: who was admitted, or what exactly failed
 * @param member the parsed member certificate; null when the chain did not parse
 */
public record Verdict(boolean admitted, RefusalReason reason, String detail, MemberCertificate member) {

    public Verdict {
        Objects.requireNonNull(detail, "detail");
        if (admitted != (reason == null)) {
            throw new IllegalArgumentException("an admitted verdict has no reason, a refusal has one");
        }
        if (admitted && member == null) {
            throw new IllegalArgumentException("an admitted verdict names its member");
        }
    }

    public static Verdict admit(MemberCertificate m) {
        return new Verdict(
                true,
                null,
                m.peerId() + " of " + m.organisation() + " admitted as "
                        + m.role().id(),
                m);
    }

    public static Verdict refuse(RefusalReason r, String detail, MemberCertificate m) {
        return new Verdict(false, Objects.requireNonNull(r, "reason"), detail, m);
    }
}
