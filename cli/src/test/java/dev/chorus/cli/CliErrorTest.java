package dev.chorus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Bad input: one line naming the problem on standard error, exit code 2, no stack trace. */
class CliErrorTest {

    @TempDir
    static Path dir;

    static Path file(String name, String content) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, content);
        return p;
    }

    static Stream<Arguments> badInputs() throws IOException {
        String missing = dir.resolve("missing.csv").toString();
        String nonNumeric = file("nonnumeric.csv", "a,b,label\n1,2,x\n3,4,y\n5,6..1,x\n7,8,y\n")
                .toString();
        String empty = file("empty.csv", "a,b,label\n").toString();
        String oneClass = file("oneclass.csv", "a,b,label\n1,2,x\n3,4,x\n").toString();
        String ragged = file("ragged.csv", "a,b,label\n1,2,x\n3,y\n").toString();
        String wdbc = TestData.path("wdbc.csv").toString();
        String aFile = file("a-file", "x").toString();
        String keyDir = Files.createDirectories(dir.resolve("key-dir")).toString();
        return Stream.of(
                Arguments.of(
                        partition(wdbc, aFile),
                        "chorus: --out " + aFile + ": a file of that name exists; name a directory"),
                Arguments.of(
                        partition(wdbc, aFile + "/sub"),
                        "chorus: --out " + aFile + "/sub: cannot create the directory (" + aFile + " is a file)"),
                Arguments.of(partition(wdbc, ""), "chorus: --out: the path is empty; name a directory"),
                Arguments.of(
                        partition(wdbc, "/proc/chorus-out"),
                        "chorus: --out /proc/chorus-out: cannot create the directory (no such file or directory)"),
                Arguments.of(
                        new String[] {"keygen", "--out", aFile + "/node.key"},
                        "chorus: cannot create key file " + aFile + "/node.key: " + aFile
                                + " is a file, not a directory"),
                Arguments.of(
                        new String[] {"keygen", "--out", "/proc/chorus.key"},
                        "chorus: cannot create key file /proc/chorus.key: no such file or directory"),
                Arguments.of(
                        new String[] {"peer-id", "--key", keyDir},
                        "chorus: key file " + keyDir + " is a directory, not a key file"),
                Arguments.of(
                        new String[] {"init", "--dir", aFile, "--consortium", "c"},
                        "chorus: --dir " + aFile + ": a file of that name exists; name a directory"),
                Arguments.of(
                        new String[] {"init", "--dir", "/proc/chorus-node", "--consortium", "c"},
                        "chorus: --dir /proc/chorus-node: cannot create the directory (no such file or directory)"),
                Arguments.of(new String[] {"train", "--data", missing, "--label", "label"}, "data file not found"),
                Arguments.of(
                        new String[] {"train", "--data", wdbc, "--label", "Nope"}, "unknown label column \"Nope\""),
                Arguments.of(
                        new String[] {"train", "--data", nonNumeric, "--label", "label"},
                        "line 4: non-numeric value \"6..1\" in numeric column b"),
                Arguments.of(new String[] {"train", "--data", empty, "--label", "label"}, "no data rows"),
                Arguments.of(new String[] {"train", "--data", oneClass, "--label", "label"}, "only one class"),
                Arguments.of(new String[] {"train", "--data", ragged, "--label", "label"}, "line 3"),
                Arguments.of(new String[] {"train", "--model", "transformer"}, "unknown model spec 'transformer'"),
                Arguments.of(new String[] {"train", "--optimizer", "rmsprop"}, "--optimizer"),
                Arguments.of(new String[] {"train", "--epochs", "0"}, "epochs must be at least 1"),
                Arguments.of(new String[] {"train", "--backend", "tpu"}, "unknown backend 'tpu'"),
                Arguments.of(new String[] {"train", "--data", wdbc}, "--label is required"),
                Arguments.of(new String[] {"train", "--bogus"}, "Unknown option: '--bogus'"),
                Arguments.of(new String[] {"train", "--test-fraction", "1.5"}, "--test-fraction"),
                Arguments.of(
                        new String[] {
                            "partition",
                            "--data",
                            wdbc,
                            "--label",
                            "Diagnosis",
                            "--nodes",
                            "3",
                            "--method",
                            "gauss:1",
                            "--out",
                            dir.resolve("p1").toString()
                        },
                        "gauss:1"),
                Arguments.of(
                        new String[] {
                            "partition",
                            "--data",
                            missing,
                            "--label",
                            "label",
                            "--nodes",
                            "3",
                            "--out",
                            dir.resolve("p2").toString()
                        },
                        "data file not found"),
                Arguments.of(new String[] {"audit", "verify", "--dir", missing}, "--dir: no such directory"),
                Arguments.of(
                        new String[] {"audit", "summary", "--dir", dir.toString()},
                        "has no audit/ directory: not a node's data directory"),
                Arguments.of(
                        new String[] {"audit", "summary", "--dir", dir.toString(), "--since", "last week"},
                        "--since: expected a UTC date"));
    }

    private static String[] partition(String data, String out) {
        return new String[] {"partition", "--data", data, "--label", "Diagnosis", "--nodes", "3", "--out", out};
    }

    @ParameterizedTest
    @MethodSource("badInputs")
    void badInputGivesOneLineAndExitCode2(String[] args, String expected) {
        CliRun run = CliRun.of(args);
        assertThat(run.exitCode()).as("exit code; stderr: %s", run.err()).isEqualTo(2);
        assertThat(run.err().strip().lines()).as(run.err()).hasSize(1);
        assertThat(run.err()).contains(expected).doesNotContain("Exception").doesNotContain("\tat ");
        assertThat(run.out()).isEmpty();
    }
}
