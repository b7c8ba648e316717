package dev.chorus.node.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.libcrypto.CryptoMode;
import dev.chorus.gossip.pnet.PreSharedKey;
import dev.chorus.learning.optim.LearningRateSchedule;
import dev.chorus.node.NodeTestDirs;
import dev.chorus.node.averaging.AveragingDefaults;
import dev.chorus.node.averaging.AveragingKind;
import dev.chorus.node.protocol.Dtype;
import dev.chorus.node.secagg.RelayRole;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every kind of config error gives one line naming the file, the line and the key. */
class ConfigLoaderTest {

    @TempDir
    Path dir;

    private Path write(String yaml) throws IOException {
        NodeTestDirs.create(dir, "");
        Path file = dir.resolve("node.yaml");
        Files.writeString(file, yaml);
        return file;
    }

    private String error(String yaml, String... overrides) throws IOException {
        Path file = write(yaml);
        try {
            ConfigLoader.load(file, List.of(overrides));
        } catch (ConfigException e) {
            assertThat(e.getMessage()).doesNotContain("\n");
            return e.getMessage();
        }
        throw new AssertionError("no error for:\n" + yaml);
    }

    @Test
    void loadsTheTestConfigWithDefaultsFilledIn() throws IOException {
        NodeConfig c = ConfigLoader.load(write(NodeTestDirs.baseYaml()), List.of());
        assertThat(c.node().consortium()).isEqualTo("test-consortium");
        assertThat(c.node().dataDir()).isEqualTo(dir.toAbsolutePath());
        assertThat(c.node().keyFile()).isEqualTo(dir.toAbsolutePath().resolve("identity.key"));
        assertThat(c.data().path()).isEqualTo(dir.toAbsolutePath().resolve("wdbc.csv"));
        assertThat(c.data().csv().drop()).containsExactly("ID");
        assertThat(c.data().validationFraction()).isEqualTo(0.2);
        assertThat(c.model().spec().toString()).isEqualTo("logreg");
        assertThat(c.training().batch()).isEqualTo(16);
        assertThat(c.training().seed()).isEqualTo(42);
        assertThat(c.averaging().strategy()).isEqualTo(AveragingKind.ASYNC);
        assertThat(c.averaging().dtype()).isEqualTo(Dtype.F32);
        assertThat(ConfigLoader.load(write(NodeTestDirs.baseYaml()), List.of("averaging.dtype=bf16"))
                        .averaging()
                        .dtype())
                .isEqualTo(Dtype.BF16);
        assertThat(c.training().lrSchedule()).isEqualTo(LearningRateSchedule.CONSTANT);
        assertThat(ConfigLoader.load(
                                write(NodeTestDirs.baseYaml()),
                                List.of("training.epochs=4", "training.lr_schedule=cosine:0.1"))
                        .training()
                        .lrSchedule())
                .isEqualTo(LearningRateSchedule.cosine(0.1));
        // auto: a node with an end to its training anneals towards it by default.
        assertThat(ConfigLoader.load(write(NodeTestDirs.baseYaml()), List.of("training.epochs=4"))
                        .training()
                        .lrSchedule())
                .isEqualTo(LearningRateSchedule.cosine(LearningRateSchedule.DEFAULT_FLOOR));
        assertThat(c.averaging().pacing().maxDriftSteps()).isEqualTo(AveragingDefaults.MAX_DRIFT_STEPS);
        assertThat(c.averaging().bySampleCount()).isTrue();
        assertThat(c.averaging().sync().roundTimeout()).isEqualTo(java.time.Duration.ofSeconds(120));
        assertThat(c.operations().checkpoints().keep()).isEqualTo(3);
        assertThat(c.operations().api().host()).isEqualTo("127.0.0.1");
        assertThat(c.operations().api().port()).isZero();
        assertThat(c.network().listen()).hasSize(1);
        assertThat(c.network().bootstrap()).isEmpty();
    }

    @Test
    void overridesWinOverTheFile() throws IOException {
        String peer = PrivateKey.generate().peerId().toString();
        NodeConfig c = ConfigLoader.load(
                write(NodeTestDirs.baseYaml()),
                List.of(
                        "training.batch=64",
                        "api.port=9999",
                        "model.spec=mlp:8",
                        "network.bootstrap=[/ip4/127.0.0.1/tcp/4001/p2p/" + peer + "]"));
        assertThat(c.training().batch()).isEqualTo(64);
        assertThat(c.operations().api().port()).isEqualTo(9999);
        assertThat(c.model().spec().toString()).isEqualTo("mlp:8:relu");
        assertThat(c.network().bootstrap().getFirst().toString()).endsWith(peer);
    }

    @Test
    void unknownKeyNamesTheLineAndTheKnownKeys() throws IOException {
        String msg = error(NodeTestDirs.baseYaml().replace("  label: Diagnosis", "  lable: Diagnosis"));
        assertThat(msg).startsWith(dir.resolve("node.yaml") + ":6: data.lable: unknown key");
        assertThat(msg).contains("label", "validation_fraction");
    }

    @Test
    void unknownTopLevelKey() throws IOException {
        assertThat(error(NodeTestDirs.baseYaml() + "trainng:\n  batch: 3\n")).contains(":23: trainng: unknown key");
    }

    @Test
    void wrongTypes() throws IOException {
        assertThat(error(NodeTestDirs.baseYaml().replace("batch: 16", "batch: sixteen")))
                .endsWith(":13: training.batch: expected an integer, got 'sixteen'");
        assertThat(error(NodeTestDirs.baseYaml().replace("batch: 16", "batch: 1.5")))
                .endsWith(":13: training.batch: expected an integer, got the number 1.5");
        assertThat(error(NodeTestDirs.baseYaml() + "data_dir: [a, b]\n"))
                .endsWith(":23: data_dir: expected a path, got a list");
        assertThat(error(NodeTestDirs.baseYaml() + "averaging:\n  strategy: [async]\n"))
                .endsWith(
                        ":24: averaging.strategy: expected one of async, fragmented, fedbuff, sync, secure, none, got a list");
        assertThat(error(NodeTestDirs.baseYaml().replace("drop: [ID]", "drop: ID")))
                .contains(":8: data.drop: expected a list of strings");
        assertThat(error(NodeTestDirs.baseYaml().replace("  port: 0", "  enabled: maybe")))
                .endsWith(":22: api.enabled: expected true or false, got 'maybe'");
        assertThat(error(NodeTestDirs.baseYaml().replace("network:\n  listen: [/ip4/127.0.0.1/tcp/0]", "network: 5")))
                .endsWith(":2: network: expected a section of keys (listen, bootstrap, target_peers, psk_file,"
                        + " crypto, mdns, added_delay_ms)");
        assertThat(error(NodeTestDirs.baseYaml(), "training.batch=abc"))
                .isEqualTo("--set training.batch: training.batch: expected an integer, got 'abc'");
    }

    @Test
    void valuesOutOfRange() throws IOException {
        assertThat(error(NodeTestDirs.baseYaml().replace("batch: 16", "batch: 0")))
                .endsWith(":13: training.batch: must be at least 1, got 0");
        assertThat(error(NodeTestDirs.baseYaml() + "averaging:\n  strategy: fedavg\n"))
                .endsWith(":24: averaging.strategy: expected one of async, fragmented, fedbuff, sync, secure, none,"
                        + " got 'fedavg'");
        assertThat(error(NodeTestDirs.baseYaml(), "averaging.dtype=fp8"))
                .endsWith("averaging.dtype: expected one of f32, f16, bf16, int8, got 'fp8'");
        assertThat(error(NodeTestDirs.baseYaml(), "training.epochs=3", "training.lr_schedule=linear"))
                .endsWith("training.lr_schedule: learning rate schedule 'linear' is not one of constant, cosine,"
                        + " cosine:FLOOR, or auto");
        assertThat(error(NodeTestDirs.baseYaml(), "training.lr_schedule=cosine:0"))
                .endsWith("training.lr_schedule: cosine:0.0 anneals over training.epochs, which is 0 (train until"
                        + " stopped): set training.epochs, or keep the schedule constant");
        assertThat(error(NodeTestDirs.baseYaml(), "averaging.round_timeout_seconds=0"))
                .contains("averaging.round_timeout_seconds: must be at least 0.1");
        assertThat(error(NodeTestDirs.baseYaml(), "data.validation_fraction=1"))
                .endsWith("data.validation_fraction: must lie strictly between 0 and 1, got 1.0");
        assertThat(error(NodeTestDirs.baseYaml(), "api.port=70000"))
                .endsWith("api.port: must be at most 65535, got 70000");
        assertThat(error(NodeTestDirs.baseYaml(), "model.spec=transformer")).contains("model.spec: ");
        assertThat(error(NodeTestDirs.baseYaml(), "model.optimizer=sgd:lr=-1")).contains("model.optimizer: ");
        assertThat(error(NodeTestDirs.baseYaml(), "averaging.group_size=2"))
                .endsWith("averaging.group_size: must be at least 3, got 2");
        assertThat(error(NodeTestDirs.baseYaml(), "averaging.secure_threshold=0.5"))
                .endsWith("averaging.secure_threshold: 0.5 is outside (0.5, 1]: t must exceed half the degree"
                        + " (docs/privacy.md)");
        assertThat(error(NodeTestDirs.baseYaml(), "averaging.secure_threshold=1.5"))
                .contains("averaging.secure_threshold: 1.5 is outside (0.5, 1]");
    }

    @Test
    void theRelaysRoleIsAutoByDefaultAndTakesTheWordsOfBothForms() throws IOException {
        assertThat(ConfigLoader.load(write(NodeTestDirs.baseYaml()), List.of())
                        .averaging()
                        .secureRelay())
                .isEqualTo(RelayRole.Setting.AUTO);
        assertThat(ConfigLoader.load(write(NodeTestDirs.baseYaml() + "averaging:\n  secure_relay: false\n"), List.of())
                        .averaging()
                        .secureRelay())
                .isEqualTo(RelayRole.Setting.NEVER);
        assertThat(ConfigLoader.load(write(NodeTestDirs.baseYaml()), List.of("averaging.secure_relay=true"))
                        .averaging()
                        .secureRelay())
                .isEqualTo(RelayRole.Setting.ALWAYS);
        assertThat(error(NodeTestDirs.baseYaml(), "averaging.secure_relay=sometimes"))
                .endsWith("averaging.secure_relay: expected one of auto, true, false, got 'sometimes'");
    }

    @Test
    void missingDataFile() throws IOException {
        assertThat(error(NodeTestDirs.baseYaml().replace("path: wdbc.csv", "path: nowhere.csv")))
                .isEqualTo(dir.resolve("node.yaml") + ":5: data.path: data file not found: "
                        + dir.toAbsolutePath().resolve("nowhere.csv"));
    }

    @Test
    void missingRequiredKey() throws IOException {
        assertThat(error(NodeTestDirs.baseYaml().replace("consortium: test-consortium\n", "")))
                .isEqualTo(dir.resolve("node.yaml") + ": consortium: required key is missing");
    }

    @Test
    void unreadableKeyFile() throws IOException {
        Path key = dir.resolve("identity.key");
        write(NodeTestDirs.baseYaml());
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-r--r--"));
        assertThat(error(NodeTestDirs.baseYaml()))
                .startsWith(dir.resolve("node.yaml") + ": identity.key_file: key file " + key)
                .contains("chmod 600");
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
        Files.write(key, new byte[] {1, 2, 3});
        assertThat(error(NodeTestDirs.baseYaml()))
                .contains("identity.key_file: key file")
                .contains("corrupt");
        assertThat(error(NodeTestDirs.baseYaml() + "identity:\n  key_file: other.key\n"))
                .contains(":24: identity.key_file: key file ")
                .contains("does not exist");
    }

    @Test
    void privateNetworkKeyFileIsLoadedRelativeToTheConfigFile() throws IOException {
        assertThat(ConfigLoader.load(write(NodeTestDirs.baseYaml()), List.of())
                        .network()
                        .privateNetwork())
                .isNull();
        PreSharedKey psk = PreSharedKey.generate();
        Files.createDirectories(dir.resolve("keys"));
        psk.write(dir.resolve("keys/swarm.key"));
        String yaml = NodeTestDirs.baseYaml()
                .replace(
                        "listen: [/ip4/127.0.0.1/tcp/0]", "listen: [/ip4/127.0.0.1/tcp/0]\n  psk_file: keys/swarm.key");
        assertThat(ConfigLoader.load(write(yaml), List.of()).network().privateNetwork())
                .isEqualTo(psk);
    }

    @Test
    void theCipherChoiceIsParsedAndABadOneNamesTheKey() throws IOException {
        assertThat(ConfigLoader.load(write(NodeTestDirs.baseYaml()), List.of())
                        .network()
                        .crypto())
                .isEqualTo(CryptoMode.AUTO);
        assertThat(ConfigLoader.load(write(NodeTestDirs.baseYaml()), List.of("network.crypto=jdk"))
                        .network()
                        .crypto())
                .isEqualTo(CryptoMode.JDK);
        String yaml = NodeTestDirs.baseYaml()
                .replace("listen: [/ip4/127.0.0.1/tcp/0]", "listen: [/ip4/127.0.0.1/tcp/0]\n  crypto: openssl");
        assertThat(ConfigLoader.load(write(yaml), List.of()).network().crypto()).isEqualTo(CryptoMode.OPENSSL);
        assertThat(error(yaml.replace("crypto: openssl", "crypto: boringssl")))
                .endsWith(":4: network.crypto: expected one of auto, jdk, openssl, got 'boringssl'");
        assertThat(error(NodeTestDirs.baseYaml(), "network.crypto=OPENSSL"))
                .isEqualTo("--set network.crypto: network.crypto: expected one of auto, jdk, openssl, got 'OPENSSL'");
    }

    /** {@code network.mdns}: off by default; on and off as YAML writes them (booleans), or an interface's name. */
    @Test
    void mdnsTakesOnOffOrAnInterfaceName() throws IOException {
        assertThat(ConfigLoader.load(write(NodeTestDirs.baseYaml()), List.of())
                        .network()
                        .mdns())
                .isEqualTo("off");
        for (String on : List.of("on", "true", "yes", "'on'")) {
            String yaml = NodeTestDirs.baseYaml()
                    .replace("listen: [/ip4/127.0.0.1/tcp/0]", "listen: [/ip4/127.0.0.1/tcp/0]\n  mdns: " + on);
            assertThat(ConfigLoader.load(write(yaml), List.of()).network().mdns())
                    .as(on)
                    .isEqualTo("on");
        }
        assertThat(ConfigLoader.load(write(NodeTestDirs.baseYaml()), List.of("network.mdns=off"))
                        .network()
                        .mdns())
                .isEqualTo("off");
        assertThat(ConfigLoader.load(write(NodeTestDirs.baseYaml()), List.of("network.mdns=lo"))
                        .network()
                        .mdns())
                .isEqualTo("lo");
        assertThat(error(NodeTestDirs.baseYaml(), "network.mdns=nosuchif9"))
                .startsWith("--set network.mdns: network.mdns: expected off, on or a network interface's name; this"
                        + " machine has no interface \"nosuchif9\" (it has ")
                .contains("lo");
    }

    @Test
    void aBadPrivateNetworkKeyFileIsOneLineNamingTheKey() throws IOException {
        Path file = dir.resolve("swarm.key");
        String yaml = NodeTestDirs.baseYaml()
                .replace("listen: [/ip4/127.0.0.1/tcp/0]", "listen: [/ip4/127.0.0.1/tcp/0]\n  psk_file: swarm.key");
        String at = dir.resolve("node.yaml") + ":4: network.psk_file: ";
        assertThat(error(yaml)).isEqualTo(at + "pre-shared key file " + file + " does not exist");
        Files.writeString(file, "/key/swarm/psk/1.0.0/\n/base16/\n0123\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        assertThat(error(yaml))
                .isEqualTo(at + file + ":3: expected 64 hexadecimal digits (a 32-byte key), got 4 characters");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        assertThat(error(yaml))
                .startsWith(at + "pre-shared key file " + file + " has permissions rw-r--r--")
                .contains("chmod 600");
    }

    @Test
    void badMultiaddrNamesTheItemAndTheBadPart() throws IOException {
        String msg = error(
                NodeTestDirs.baseYaml()
                        .replace(
                                "listen: [/ip4/127.0.0.1/tcp/0]",
                                "listen: [/ip4/127.0.0.1/tcp/0]\n  bootstrap:\n    - /ip4/1.2.3.4/tcp/4001\n    - /ip4/1.2.3.999/tcp/4001"));
        assertThat(msg).startsWith(dir.resolve("node.yaml") + ":6: network.bootstrap[1]: bad multiaddr: ");
        assertThat(msg).contains("1.2.3.999");
        assertThat(error(NodeTestDirs.baseYaml(), "network.bootstrap=[/ip4/127.0.0.1/tcp/4001]"))
                .contains("network.bootstrap: [0] /ip4/127.0.0.1/tcp/4001: must end in /p2p/<peer id>");
        assertThat(error(NodeTestDirs.baseYaml(), "network.listen=[/ip4/127.0.0.1/udp/5]"))
                .startsWith("--set network.listen: network.listen: [0] /ip4/127.0.0.1/udp/5: ");
    }

    @Test
    void yamlSyntaxErrorsAndDuplicatesNameTheLine() throws IOException {
        assertThat(error(NodeTestDirs.baseYaml().replace("drop: [ID]", "drop: [ID")))
                .contains("not valid YAML");
        assertThat(error(NodeTestDirs.baseYaml().replace("  positive: M", "  positive: M\n  positive: B")))
                .contains(":8: data.positive: key appears twice");
        assertThat(error("- a\n- b\n")).endsWith(":1: the file must be a mapping of keys to values");
    }

    @Test
    void pacingKeysDefaultToMinutesAndSecondsAndAreChecked() throws IOException {
        String yaml = NodeTestDirs.baseYaml()
                .replace("  eval_every_seconds: 0\n", "")
                .replace("  every_seconds: 0\n", "")
                .replace("  early_stopping: off\n", "");
        NodeConfig c = ConfigLoader.load(write(yaml), List.of());
        assertThat(c.training().evaluation()).isEqualTo(new NodeConfig.Interval(5, java.time.Duration.ofSeconds(30)));
        assertThat(c.operations().checkpoints().every())
                .isEqualTo(new NodeConfig.Interval(10, java.time.Duration.ofMinutes(5)));
        assertThat(c.averaging().pacing().maxExchangesPerSecondPerPeer()).isEqualTo(2.0);
        NodeConfig set = ConfigLoader.load(
                write(yaml),
                List.of(
                        "training.eval_every_seconds=0.5",
                        "checkpoint.every_seconds=0",
                        "averaging.max_exchanges_per_second_per_peer=0"));
        assertThat(set.training().evaluation().time()).isEqualTo(java.time.Duration.ofMillis(500));
        assertThat(set.operations().checkpoints().every().time()).isZero();
        assertThat(set.averaging().pacing().maxExchangesPerSecondPerPeer()).isZero();
        assertThat(error(NodeTestDirs.baseYaml().replace("eval_every_seconds: 0", "eval_every_seconds: -1")))
                .contains(":15: training.eval_every_seconds: must be at least 0");
        assertThat(error(NodeTestDirs.baseYaml().replace("every_seconds: 0\n  keep", "every_seconds: soon\n  keep")))
                .contains(":19: checkpoint.every_seconds: expected a number");
        assertThat(c.training().earlyStopping()).isEqualTo(new NodeConfig.EarlyStoppingPolicy("auto", 20));
        assertThat(error(NodeTestDirs.baseYaml().replace("early_stopping: off", "early_stopping: later")))
                .contains(":16: training.early_stopping: expected one of auto, warn, stop, off, got 'later'");
        assertThat(error(NodeTestDirs.baseYaml(), "training.early_stopping_patience=0"))
                .contains("training.early_stopping_patience: must be at least 1");
        assertThat(error(NodeTestDirs.baseYaml(), "averaging.max_exchanges_per_second_per_peer=-2"))
                .contains("averaging.max_exchanges_per_second_per_peer: must be at least 0");
    }

    @Test
    void missingConfigFile() {
        assertThatThrownBy(() -> ConfigLoader.load(dir.resolve("absent.yaml"), List.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessage(dir.resolve("absent.yaml") + ": config file not found");
    }
}
