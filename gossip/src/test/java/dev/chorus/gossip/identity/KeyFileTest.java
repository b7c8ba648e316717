package dev.chorus.gossip.identity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.gossip.Vectors;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeyFileTest {
    @TempDir
    Path dir;

    @Test
    void createsWithOwnerOnlyModeAndReloads() throws Exception {
        Path file = dir.resolve("sub/node.key");
        PrivateKey key = KeyFile.loadOrCreate(file);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
                .isEqualTo("rw-------");
        assertThat(KeyFile.loadOrCreate(file).peerId()).isEqualTo(key.peerId());
        assertThat(Files.readAllBytes(file)).isEqualTo(key.toProtobuf());
        assertThatThrownBy(() -> KeyFile.create(file, key)).hasMessageContaining("already exists");
    }

    @Test
    void readsJsProtobuf() throws Exception {
        Path file = dir.resolve("a.key");
        Files.write(file, Vectors.hex("identities.A.privateKeyProtobuf"));
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        assertThat(KeyFile.load(file).peerId().toBase58()).isEqualTo(Vectors.text("identities.A.peerIdBase58"));
    }

    @Test
    void refusesLoosePermissions() throws Exception {
        Path file = dir.resolve("node.key");
        KeyFile.create(file, PrivateKey.generate());
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        assertThatThrownBy(() -> KeyFile.load(file))
                .isInstanceOf(KeyFileException.class)
                .hasMessageContaining("rw-r--r--")
                .hasMessageContaining("chmod 600");
    }

    @Test
    void refusesCorruptContent() throws Exception {
        Path file = dir.resolve("node.key");
        KeyFile.create(file, PrivateKey.generate());
        byte[] b = Files.readAllBytes(file);
        b[b.length - 1] ^= 1; // embedded public key no longer matches the seed
        Files.write(file, b);
        assertThatThrownBy(() -> KeyFile.load(file))
                .isInstanceOf(KeyFileException.class)
                .hasMessageContaining("corrupt");
        Files.write(file, new byte[] {0x08, 0x01, 0x12, 0x40, 1, 2});
        assertThatThrownBy(() -> KeyFile.load(file)).hasMessageContaining("corrupt");
        assertThatThrownBy(() -> KeyFile.load(dir.resolve("missing"))).hasMessageContaining("does not exist");
    }
}
