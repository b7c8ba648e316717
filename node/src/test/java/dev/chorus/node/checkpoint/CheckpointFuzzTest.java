package dev.chorus.node.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * Coverage-guided fuzz test of the checkpoint reader. The fuzzer's bytes are the file's body and the test appends
 * their SHA-256, so that the parser behind the checksum is reached: {@link CorruptCheckpointException} is its only
 * rejection, and a checkpoint it reads writes back to a file that reads to the same bytes again. Regression inputs:
 * {@code CheckpointFuzzTestInputs/}.
 */
class CheckpointFuzzTest {

    @FuzzTest
    void read(byte[] body) throws IOException, NoSuchAlgorithmException {
        byte[] file = Arrays.copyOf(body, body.length + CheckpointFormat.DIGEST_BYTES);
        byte[] digest = MessageDigest.getInstance("SHA-256").digest(body);
        System.arraycopy(digest, 0, file, body.length, digest.length);
        Checkpoint c;
        try {
            c = CheckpointFormat.read(file);
        } catch (CorruptCheckpointException rejected) {
            return;
        }
        byte[] written = write(c);
        byte[] again;
        try {
            again = write(CheckpointFormat.read(written));
        } catch (CorruptCheckpointException e) {
            throw new AssertionError("a checkpoint written from one that was read does not read back", e);
        }
        assertThat(again).isEqualTo(written);
    }

    private static byte[] write(Checkpoint c) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CheckpointFormat.write(c, out);
        return out.toByteArray();
    }
}
