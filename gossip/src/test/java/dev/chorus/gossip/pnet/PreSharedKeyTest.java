package dev.chorus.gossip.pnet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The v1 key file: what is read, what is refused and how the refusal reads, and the file written. */
class PreSharedKeyTest {
    /** The example key of js-libp2p's pnet README. */
    static final String HEX = "dffb7e3135399a8b1612b2aaca1c36a3a8ac2cd0cca51ceeb2ced87d308cac6d";

    static final PreSharedKey EXAMPLE = PreSharedKey.of(HexFormat.of().parseHex(HEX));

    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "/key/swarm/psk/1.0.0/\\n/base16/\\n" + HEX,
                "/key/swarm/psk/1.0.0/\\n/base16/\\n" + HEX + "\\n",
                "/key/swarm/psk/1.0.0/\\r\\n/base16/\\r\\n" + HEX + "\\r\\n",
                "/key/swarm/psk/1.0.0/\\n/base16/\\nDFFB7E3135399A8B1612B2AACA1C36A3A8AC2CD0CCA51CEEB2CED87D308CAC6D\\n",
            })
    void readsBase16(String text) {
        assertThat(PreSharedKey.parse(unescape(text), "swarm.key")).isEqualTo(EXAMPLE);
    }

    @Test
    void readsBase64() {
        String b64 = Base64.getEncoder().encodeToString(HexFormat.of().parseHex(HEX));
        assertThat(PreSharedKey.parse("/key/swarm/psk/1.0.0/\n/base64/\n" + b64 + "\n", "swarm.key"))
                .isEqualTo(EXAMPLE);
    }

    @Test
    void writesBase16InLowerCaseAsJsLibp2pReadsIt() {
        assertThat(new String(EXAMPLE.encode(), StandardCharsets.US_ASCII))
                .isEqualTo("/key/swarm/psk/1.0.0/\n/base16/\n" + HEX + "\n");
        PreSharedKey k = PreSharedKey.generate();
        assertThat(PreSharedKey.parse(k.encode(), "generated")).isEqualTo(k);
    }

    private static String unescape(String s) {
        return s.replace("\\n", "\n").replace("\\r", "\r").replace("\\t", "\t");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '"',
            value = {
                "\"\"| swarm.key:1: the file is empty",
                "/key/swarm/psk/2.0.0/\\n/base16/\\n" + HEX
                        + "| swarm.key:1: expected /key/swarm/psk/1.0.0/ (a libp2p pre-shared key, v1), got"
                        + " '/key/swarm/psk/2.0.0/'",
                "/key/swarm/psk/1.0.0/| swarm.key:2: the encoding is missing",
                "/key/swarm/psk/1.0.0/\\n/base16/| swarm.key:3: the key is missing",
                "/key/swarm/psk/1.0.0/\\n/base16/\\n| swarm.key:3: the key is missing",
                "/key/swarm/psk/1.0.0/\\n/base32/\\nabc| swarm.key:2: expected /base16/ or /base64/, got '/base32/'",
                "/key/swarm/psk/1.0.0/\\n/bin/\\nabc| swarm.key:2: the /bin/ encoding is not supported",
                "/key/swarm/psk/1.0.0/\\n/base16/\\nffb7e3135399a8b1612b2aaca1c36a3a8ac2cd0cca51ceeb2ced87d308cac6d"
                        + "| swarm.key:3: expected 64 hexadecimal digits (a 32-byte key), got 63 characters",
                "/key/swarm/psk/1.0.0/\\n/base16/\\n" + HEX + "00"
                        + "| swarm.key:3: expected 64 hexadecimal digits (a 32-byte key), got 66 characters",
                "/key/swarm/psk/1.0.0/\\n/base16/\\nxffb7e3135399a8b1612b2aaca1c36a3a8ac2cd0cca51ceeb2ced87d308cac6d"
                        + "| swarm.key:3: character 1 is not a hexadecimal digit",
                "\"/key/swarm/psk/1.0.0/\\n/base16/\\n" + HEX + " \"| swarm.key:3: expected 64 hexadecimal digits",
                "/key/swarm/psk/1.0.0/\\n/base64/\\nAAAA| swarm.key:3: the key is 3 bytes; it must be 32",
                "/key/swarm/psk/1.0.0/\\n/base64/\\n!!!!| swarm.key:3: not valid base64",
                "/key/swarm/psk/1.0.0/\\n/base16/\\n" + HEX + "\\nmore"
                        + "| swarm.key:4: unexpected content after the key",
                "/key/swarm/psk/1.0.0/\\n/base16/\\n" + HEX + "\\n\\n| swarm.key:4: unexpected content after the key",
                "\" /key/swarm/psk/1.0.0/\\n/base16/\\n" + HEX + "\"| swarm.key:1: expected /key/swarm/psk/1.0.0/",
                "/key/swarm/psk/1.0.0/\\n/base16/\\tx\\n" + HEX + "| swarm.key:2: unexpected byte 0x09",
                "/key/swarm/psk/1.0.0/\\rx\\n/base16/\\n" + HEX + "| swarm.key:1: unexpected byte 0x0d",
            })
    void refusesAnythingElseNamingTheLine(String text, String message) {
        assertThatThrownBy(() -> PreSharedKey.parse(unescape(text), "swarm.key"))
                .isInstanceOf(PreSharedKeyException.class)
                .hasMessageStartingWith(message.strip());
    }

    @Test
    void refusesBinaryContentAndNeverEchoesTheKey() {
        byte[] content = "/key/swarm/psk/1.0.0/\n/base16/\n\u00e9".getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> PreSharedKey.parse(content, "swarm.key"))
                .hasMessage("swarm.key:3: unexpected byte 0xc3: a pre-shared key file is three lines of ASCII text");
        String almost = HEX.substring(0, 63) + "z";
        assertThatThrownBy(() -> PreSharedKey.parse("/key/swarm/psk/1.0.0/\n/base16/\n" + almost, "swarm.key"))
                .hasMessageNotContaining(almost.substring(0, 20));
    }

    @Test
    void theKeyIsNeverShown() {
        assertThat(EXAMPLE.toString()).doesNotContain(HEX.substring(0, 8)).startsWith("PreSharedKey[fingerprint ");
        assertThat(EXAMPLE.fingerprint()).hasSize(32).isEqualTo(EXAMPLE.fingerprint());
        assertThat(PreSharedKey.generate().fingerprint()).isNotEqualTo(EXAMPLE.fingerprint());
    }

    @Test
    void writesANewOwnerOnlyFileAndLoadsIt() throws Exception {
        Path file = dir.resolve("keys/swarm.key");
        PreSharedKey k = PreSharedKey.generate();
        k.write(file);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
                .isEqualTo("rw-------");
        assertThat(PreSharedKey.load(file)).isEqualTo(k);
        assertThatThrownBy(() -> PreSharedKey.generate().write(file))
                .isInstanceOf(PreSharedKeyException.class)
                .hasMessage("pre-shared key file " + file + " already exists");
        assertThat(PreSharedKey.load(file)).isEqualTo(k);
    }

    @Test
    void refusesAFileOthersMayRead() throws Exception {
        Path file = dir.resolve("swarm.key");
        EXAMPLE.write(file);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        assertThatThrownBy(() -> PreSharedKey.load(file))
                .isInstanceOf(PreSharedKeyException.class)
                .hasMessageContaining("must be readable by its owner only (chmod 600 " + file + ")");
    }

    @Test
    void namesTheFileInEveryError() throws Exception {
        Path missing = dir.resolve("none.key");
        assertThatThrownBy(() -> PreSharedKey.load(missing))
                .hasMessage("pre-shared key file " + missing + " does not exist");
        Path bad = dir.resolve("bad.key");
        Files.writeString(bad, "/key/swarm/psk/1.0.0/\n/base16/\nabc\n");
        Files.setPosixFilePermissions(bad, PosixFilePermissions.fromString("rw-------"));
        assertThatThrownBy(() -> PreSharedKey.load(bad)).hasMessageStartingWith(bad + ":3: expected 64 hexadecimal");
        assertThatThrownBy(() -> PreSharedKey.load(dir)).hasMessageContaining("is a directory");
    }
}
