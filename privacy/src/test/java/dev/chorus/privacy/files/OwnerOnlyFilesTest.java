package dev.chorus.privacy.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real files in a temporary directory, on a POSIX file system. */
class OwnerOnlyFilesTest {

    @TempDir
    Path dir;

    private static String mode(Path p) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    }

    @Test
    void newDirectoriesAre0700AndExistingOnesKeepTheirMode() throws IOException {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-x---"));
        Path deep = dir.resolve("a").resolve("b").resolve("c");
        OwnerOnlyFiles.createDirectories(deep);
        assertThat(mode(dir.resolve("a"))).isEqualTo("rwx------");
        assertThat(mode(dir.resolve("a/b"))).isEqualTo("rwx------");
        assertThat(mode(deep)).isEqualTo("rwx------");
        assertThat(mode(dir)).isEqualTo("rwxr-x---");
        OwnerOnlyFiles.createDirectories(deep); // exists: nothing to do
        assertThat(mode(deep)).isEqualTo("rwx------");
    }

    @Test
    void aFileInTheWayIsAnError() throws IOException {
        Files.writeString(dir.resolve("f"), "x");
        assertThatThrownBy(() -> OwnerOnlyFiles.createDirectories(dir.resolve("f")))
                .isInstanceOf(FileAlreadyExistsException.class);
    }

    @Test
    void openCreatesA0600FileAndLeavesAnExistingOnesMode() throws IOException {
        Path f = dir.resolve("x.log");
        OwnerOnlyFiles.open(f, Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE))
                .close();
        assertThat(mode(f)).isEqualTo("rw-------");
        Path g = Files.writeString(dir.resolve("g"), "x");
        Files.setPosixFilePermissions(g, PosixFilePermissions.fromString("rw-r-----"));
        OwnerOnlyFiles.open(g, Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE))
                .close();
        assertThat(mode(g)).isEqualTo("rw-r-----");
        assertThat(OwnerOnlyFiles.posix(dir.resolve("not/yet/there"))).isTrue();
    }
}
