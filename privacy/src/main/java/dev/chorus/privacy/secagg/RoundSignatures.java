package dev.chorus.privacy.secagg;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.crypto.signers.Ed25519Signer;

/**
 * The two signed statements of a round, under members' Ed25519 identity keys. Each starts with its own label, so
 * that a signature over one can never pass for the other or for anything else the identity key signs.
 */
final class RoundSignatures {

    private static final byte[] ADVERTISE = "chorus/secagg/advertise/v1".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SURVIVORS = "chorus/secagg/survivors/v1".getBytes(StandardCharsets.US_ASCII);

    private RoundSignatures() {}

    /** (label, round ID, member, mask key, share key). */
    static byte[] advertisement(byte[] roundId, int member, byte[] maskKey, byte[] shareKey) {
        return ByteBuffer.allocate(ADVERTISE.length + 4 + roundId.length + 4 + maskKey.length + shareKey.length)
                .put(ADVERTISE)
                .putInt(roundId.length)
                .put(roundId)
                .putInt(member)
                .put(maskKey)
                .put(shareKey)
                .array();
    }

    /** (label, round ID, the survivor set in ascending order). */
    static byte[] survivors(byte[] roundId, int[] survivors) {
        ByteBuffer b = ByteBuffer.allocate(SURVIVORS.length + 8 + roundId.length + 4 * survivors.length)
                .put(SURVIVORS)
                .putInt(roundId.length)
                .put(roundId)
                .putInt(survivors.length);
        for (int s : survivors) {
            b.putInt(s);
        }
        return b.array();
    }

    static byte[] sign(Ed25519PrivateKeyParameters key, byte[] statement) {
        Ed25519Signer signer = new Ed25519Signer();
        signer.init(true, key);
        signer.update(statement, 0, statement.length);
        return signer.generateSignature();
    }

    static boolean verify(byte[] publicKey, byte[] statement, byte[] signature) {
        if (publicKey.length != Ed25519PublicKeyParameters.KEY_SIZE
                || signature.length != Ed25519PrivateKeyParameters.SIGNATURE_SIZE) {
            return false;
        }
        Ed25519Signer verifier = new Ed25519Signer();
        verifier.init(false, new Ed25519PublicKeyParameters(publicKey, 0));
        verifier.update(statement, 0, statement.length);
        return verifier.verifySignature(signature);
    }
}
