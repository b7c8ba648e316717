package dev.chorus.privacy.membership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where a CA passphrase comes from: an owner-only file, else the environment, never an empty one. */
class PassphraseTest {

    @TempDir
    Path dir;

    private Path file(String content, String mode) throws Exception {
        Path p = dir.resolve("pass-" + mode);
        Files.writeString(p, content);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(mode));
        return p;
    }

    @Test
    void readsTheFirstLineOfAnOwnerOnlyFile() throws Exception {
        Path p = file(" s3cret phrase \nsecond line\n", "rw-------");
        assertThat(Passphrase.resolve(p, Map.of())).isEqualTo(" s3cret phrase ".toCharArray());
        Path crlf = dir.resolve("crlf");
        Files.writeString(crlf, "windows\r\n");
        Files.setPosixFilePermissions(crlf, PosixFilePermissions.fromString("r--------"));
        assertThat(Passphrase.resolve(crlf, Map.of(Passphrase.ENVIRONMENT_VARIABLE, "ignored")))
                .isEqualTo("windows".toCharArray());
    }

    @Test
    void fallsBackToTheEnvironment() {
        assertThat(Passphrase.resolve(null, Map.of("CHORUS_CA_PASSPHRASE", "from env")))
                .isEqualTo("from env".toCharArray());
    }

    @Test
    void refusesNoPassphraseAnEmptyOneAndALooseFile() throws Exception {
        assertThatThrownBy(() -> Passphrase.resolve(null, Map.of()))
                .isInstanceOf(MembershipException.class)
                .hasMessage("no passphrase: give --passphrase-file FILE or set CHORUS_CA_PASSPHRASE");
        assertThatThrownBy(() -> Passphrase.resolve(null, Map.of("CHORUS_CA_PASSPHRASE", "")))
                .isInstanceOf(MembershipException.class)
                .hasMessageContaining("CHORUS_CA_PASSPHRASE is empty");
        Path empty = file("\nsecond\n", "rw-------");
        assertThatThrownBy(() -> Passphrase.resolve(empty, Map.of()))
                .isInstanceOf(MembershipException.class)
                .hasMessageContaining("is empty");
        Path loose = file("secret\n", "rw-r--r--");
        assertThatThrownBy(() -> Passphrase.resolve(loose, Map.of()))
                .isInstanceOf(MembershipException.class)
                .hasMessage("passphrase file " + loose + " has mode 0644; it must be readable by its owner only: run"
                        + " chmod 600 " + loose);
        Path missing = dir.resolve("missing");
        assertThatThrownBy(() -> Passphrase.resolve(missing, Map.of()))
                .isInstanceOf(MembershipException.class)
                .hasMessage("passphrase file " + missing + " does not exist");
    }
}
