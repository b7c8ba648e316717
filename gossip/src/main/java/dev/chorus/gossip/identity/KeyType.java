package dev.chorus.gossip.identity;

/** The {@code KeyType} enum of the libp2p key protobufs. */
public enum KeyType {
    RSA(0),
    ED25519(1),
    SECP256K1(2),
    ECDSA(3);

    private final int code;

    KeyType(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public static KeyType fromCode(long code) {
        for (KeyType t : values()) {
            if (t.code == code) {
                return t;
            }
        }
        throw new InvalidKeyException("unknown key type " + code);
    }
}
