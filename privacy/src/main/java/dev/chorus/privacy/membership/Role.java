package dev.chorus.privacy.membership;

import java.util.Locale;

/**
 * What a member certificate lets its node do: {@link #MEMBER} trains and exchanges models, {@link #OBSERVER} only
 * reads the consortium's announcements. The role travels in the certificate's subject as {@code OU=<id>}.
 */
public enum Role {
    MEMBER("member"),
    OBSERVER("observer");

    private final String id;

    Role(String id) {
        this.id = id;
    }

    /** The lower-case name used in certificates, on the command line and in logs. */
    public String id() {
        return id;
    }

    /** The role named {@code s} ({@code member} or {@code observer}, case-insensitive). */
    public static Role parse(String s) {
        if (s != null) {
            String wanted = s.strip().toLowerCase(Locale.ROOT);
            for (Role r : values()) {
                if (r.id.equals(wanted)) {
                    return r;
                }
            }
        }
        throw new MembershipException("unknown role '" + s + "': expected member or observer");
    }
}
