package dev.chorus.learning.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AtomicFileTest {

    @TempDir
    Path dir;

    private String[] listing() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toArray(String[]::new);
        }
    }

    @Test
    void writesTheContentAndReturnsItsHash() throws IOException {
        Path target = dir.resolve("out.txt");
        String sha = AtomicFile.writeString(target, "abc");
        assertThat(Files.readString(target)).isEqualTo("abc");
        // FIPS 180-2 test vector for "abc"
        assertThat(sha).isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assertThat(listing()).containsExactly("out.txt");
    }

    @Test
    void creationAttributesApplyToTheWrittenFile() throws IOException {
        Path target = dir.resolve("secret.bin");
        AtomicFile.write(
                target,
                out -> out.write(1),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(target)))
                .isEqualTo("rw-------");
        AtomicFile.writeString(target, "again, without attributes");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(target)))
                .isNotEqualTo("rw-------"); // the umask's mode: attributes are what makes the difference
    }

    @Test
    void failureLeavesNoPartialFileAndKeepsTheOldContent() throws IOException {
        Path target = dir.resolve("out.txt");
        Files.writeString(target, "old");
        assertThatThrownBy(() -> AtomicFile.write(target, out -> {
                    out.write("half of the new content".getBytes(StandardCharsets.UTF_8));
                    throw new IOException("disk full");
                }))
                .isInstanceOf(IOException.class)
                .hasMessage("disk full");
        assertThat(Files.readString(target)).isEqualTo("old");
        assertThat(listing()).containsExactly("out.txt");
    }

    @Test
    void failureOfANewFileLeavesNothing() throws IOException {
        Path target = dir.resolve("new.csv");
        assertThatThrownBy(() -> AtomicFile.write(target, out -> {
                    out.write(new byte[100_000]);
                    throw new IllegalStateException("bad row");
                }))
                .isInstanceOf(IllegalStateException.class);
        assertThat(listing()).isEmpty();
    }

    @Test
    void replacesAnExistingFile() throws IOException {
        Path target = dir.resolve("out.txt");
        Files.writeString(target, "old content, longer");
        AtomicFile.writeString(target, "new");
        assertThat(Files.readString(target)).isEqualTo("new");
    }
}
