package dev.chorus.privacy.membership;

/** Why a peer was not admitted. {@link #id()} is the short label used in metrics and logs. */
public enum RefusalReason {
    /** The peer presented no certificate. */
    NO_CERTIFICATE("no-certificate"),
    /** The bytes are not a member certificate: not DER, too large, too many, or a field is missing. */
    MALFORMED("malformed"),
    /** The issuer is not one of the roster's institution CAs. */
    UNKNOWN_CA("unknown-ca"),
    /** The issuer is in the roster, but its key did not sign this certificate. */
    BAD_SIGNATURE("bad-signature"),
    /** The member certificate or its CA certificate has expired. */
    EXPIRED("expired"),
    /** The member certificate or its CA certificate is not valid yet. */
    NOT_YET_VALID("not-yet-valid"),
    /** The issuing CA's newest CRL lists the certificate. */
    REVOKED("revoked"),
    /** The certificate names another peer than the one authenticated on the connection. */
    PEER_ID_MISMATCH("peer-id-mismatch"),
    /** The certificate claims another organisation than its issuing CA's: no CA admits nodes for another. */
    ORGANISATION_MISMATCH("organisation-mismatch"),
    /** The peer did not present its certificate in time. */
    TIMEOUT("timeout"),
    /** The peer broke the exchange protocol. */
    PROTOCOL("protocol");

    private final String id;

    RefusalReason(String id) {
        this.id = id;
    }

    /** The kebab-case label for metrics and logs. */
    public String id() {
        return id;
    }
}
