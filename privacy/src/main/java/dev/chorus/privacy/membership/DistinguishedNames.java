package dev.chorus.privacy.membership;

import java.util.regex.Pattern;
import javax.security.auth.x500.X500Principal;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.ASN1String;
import org.bouncycastle.asn1.x500.AttributeTypeAndValue;
import org.bouncycastle.asn1.x500.RDN;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;

/** The subject names of consortium certificates: what they hold and how a single attribute is read back. */
final class DistinguishedNames {

    /** RFC 5280 appendix A: ub-organization-name is 64 characters. */
    static final int MAX_ORGANISATION = 64;

    /** The base58 alphabet of libp2p peer IDs (Bitcoin's: no 0, O, I or l). */
    private static final Pattern PEER_ID = Pattern.compile("[1-9A-HJ-NP-Za-km-z]{1,128}");

    private DistinguishedNames() {}

    /** {@code O=<organisation>, CN=<organisation> CA}. */
    static X500Name authority(String organisation) {
        return new X500NameBuilder(BCStyle.INSTANCE)
                .addRDN(BCStyle.O, organisation)
                .addRDN(BCStyle.CN, organisation + " CA")
                .build();
    }

    /** {@code O=<organisation>, OU=<role>, CN=<peer id>}. */
    static X500Name member(String organisation, Role role, String peerId) {
        return new X500NameBuilder(BCStyle.INSTANCE)
                .addRDN(BCStyle.O, organisation)
                .addRDN(BCStyle.OU, role.id())
                .addRDN(BCStyle.CN, peerId)
                .build();
    }

    static X500Name of(X500Principal p) {
        return X500Name.getInstance(p.getEncoded());
    }

    /** The one value of {@code type} in {@code name}; null when there is none, an exception when there are several. */
    static String single(X500Name name, ASN1ObjectIdentifier type, String label) {
        RDN[] rdns = name.getRDNs(type);
        if (rdns.length == 0) {
            return null;
        }
        if (rdns.length > 1 || rdns[0].isMultiValued()) {
            throw new MembershipException("the subject holds more than one " + label + " (" + name + ")");
        }
        AttributeTypeAndValue atv = rdns[0].getFirst();
        // the value itself, not RFC 4514's escaped form, so that "Acme \"Hospital\"" reads back as it was issued
        if (atv.getValue() instanceof ASN1String text) {
            return text.getString();
        }
        throw new MembershipException("the subject's " + label + " is not a string (" + name + ")");
    }

    /** The organisation ({@code O}) of a subject or issuer name; an exception when there is not exactly one. */
    static String organisation(X500Principal p) {
        X500Name name = of(p);
        String o = single(name, BCStyle.O, "organisation (O)");
        if (o == null || o.isBlank()) {
            throw new MembershipException("the name " + name + " has no organisation (O)");
        }
        return o;
    }

    /** Checks a new CA's organisation name: printable, not blank, at most 64 characters. */
    static String checkOrganisation(String organisation) {
        if (organisation == null || organisation.isBlank()) {
            throw new MembershipException("the organisation name is empty");
        }
        if (organisation.chars().anyMatch(Character::isISOControl)) {
            throw new MembershipException("the organisation name holds control characters");
        }
        if (!organisation.equals(organisation.strip())) {
            throw new MembershipException(
                    "the organisation name '" + organisation + "' has leading or trailing spaces");
        }
        if (organisation.length() > MAX_ORGANISATION) {
            throw new MembershipException("the organisation name is " + organisation.length()
                    + " characters long; at most " + MAX_ORGANISATION + " are allowed (RFC 5280)");
        }
        return organisation;
    }

    /** Checks that {@code peerId} looks like a base58 libp2p peer ID (1 to 128 base58 characters). */
    static String checkPeerId(String peerId) {
        if (peerId == null || !PEER_ID.matcher(peerId).matches()) {
            throw new MembershipException("'" + peerId + "' is not a libp2p peer ID: expected 1 to 128 base58"
                    + " characters (such as 12D3KooW...)");
        }
        return peerId;
    }

    static boolean looksLikePeerId(String s) {
        return s != null && PEER_ID.matcher(s).matches();
    }
}
