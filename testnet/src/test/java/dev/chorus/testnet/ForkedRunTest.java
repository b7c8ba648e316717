package dev.chorus.testnet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.node.setup.UserError;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The result files and child processes of {@code testnet --fork}. */
class ForkedRunTest {

    private static TestnetRun run(String label) {
        List<TestnetRun.Sample> samples = new ArrayList<>();
        samples.add(new TestnetRun.Sample(label, 0, 0.5, 0, new TestnetRun.Score(0.75, 0.6, 0.81, 0.72), 12, 1000));
        samples.add(
                new TestnetRun.Sample(label, 0, 0.6, 1, new TestnetRun.Score(0.70, 0.7, Double.NaN, 0.69), 11, 900));
        return new TestnetRun(
                label,
                StrategyKind.ASYNC,
                new TestnetRun.Impairments(new int[] {1}, new int[0], new long[] {0, 0}),
                new TestnetRun.Scores(
                        List.copyOf(samples),
                        new double[] {0.5},
                        new double[] {0.75, 0.70},
                        new double[] {0.6, 0.7},
                        new double[] {0.81, Double.NaN},
                        new double[] {0.72, 0.69},
                        new double[] {0.5, Double.NaN}),
                new TestnetRun.Exchanges(
                        new long[] {1000, 900},
                        new long[] {800, 700},
                        new long[] {6, 5},
                        new long[] {40, 30},
                        new long[] {3, 1, 0}),
                new TestnetRun.Pace(new double[] {24.0, 22.0}, new double[] {0.0, 3.5}, new double[] {1.0, 4.9}),
                new TestnetRun.Timing(1.0, 0.25, 1.5),
                new TestnetRun.Outsiders(2, 30, 28, 27, 15, 0, 0, 0));
    }

    @Test
    void aResultComesBackAsItWasWritten(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("run.bin");
        ForkedRun.write(file, new ForkedRun.Result(List.of(run("async")), run("async-ideal"), 4242));
        ForkedRun.Result back = ForkedRun.read(file);
        assertThat(back.pid()).isEqualTo(4242);
        assertThat(back.warmUps()).hasSize(1);
        assertThat(back.warmUps().getFirst().label()).isEqualTo("async");
        TestnetRun r = back.run();
        assertThat(r.label()).isEqualTo("async-ideal");
        assertThat(r.strategy()).isEqualTo(StrategyKind.ASYNC);
        assertThat(r.scores().samples()).isEqualTo(run("async-ideal").scores().samples());
        assertThat(r.scores().timeToTarget()).containsExactly(0.5, Double.NaN);
        assertThat(r.scores().finalAuc()).containsExactly(0.81, Double.NaN);
        assertThat(r.scores().finalBalancedAccuracy()).containsExactly(0.72, 0.69);
        assertThat(r.scores().samples().get(1).score().balancedAccuracy()).isEqualTo(0.69);
        assertThat(r.exchanges().staleness()).containsExactly(3, 1, 0);
        assertThat(r.pace().waitSeconds()).containsExactly(0.0, 3.5);
        assertThat(r.impairments().stragglers()).containsExactly(1);
        assertThat(r.timing().settleSeconds()).isEqualTo(1.5);
        assertThat(r.outsiders()).isEqualTo(new TestnetRun.Outsiders(2, 30, 28, 27, 15, 0, 0, 0));
        assertThat(r.meanAccuracyPerTick()).containsExactly(0.725);
    }

    @Test
    void aFileThatHoldsNoRunIsRefusedWithoutBuildingWhatItNames(@TempDir Path dir) throws IOException {
        Path missing = dir.resolve("none.bin");
        assertThatThrownBy(() -> ForkedRun.read(missing))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("wrote no result");

        Path garbage = dir.resolve("garbage.bin");
        Files.write(garbage, new byte[] {1, 2, 3, 4});
        assertThatThrownBy(() -> ForkedRun.read(garbage)).isInstanceOf(IOException.class);

        // A class outside the filter's list is refused before it is built.
        Path other = dir.resolve("other.bin");
        try (ObjectOutputStream out = new ObjectOutputStream(Files.newOutputStream(other))) {
            out.writeObject(new java.util.HashMap<String, String>());
        }
        assertThatThrownBy(() -> ForkedRun.read(other))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("something other than a testnet run");

        Path string = dir.resolve("string.bin");
        try (ObjectOutputStream out = new ObjectOutputStream(Files.newOutputStream(string))) {
            out.writeObject("a string");
        }
        assertThatThrownBy(() -> ForkedRun.read(string))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("holds no testnet run");
    }

    @Test
    void runIdsNameTheStrategyAndTheVariant() {
        assertThat(ForkedRun.id(StrategyKind.FRAGMENTED, false)).isEqualTo("fragmented:ideal");
        assertThat(ForkedRun.parse("fragmented:ideal")).isEqualTo(new PlannedRun(StrategyKind.FRAGMENTED, false));
        assertThat(ForkedRun.parse("sync:impaired")).isEqualTo(new PlannedRun(StrategyKind.SYNC, true));
        assertThatThrownBy(() -> ForkedRun.parse("async"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--fork-child: expected STRATEGY:impaired|ideal, got \"async\"");
    }

    /** A child that fails is reported with the last lines it wrote, and its output is passed on as it comes. */
    @Test
    void aFailedChildIsReportedWithItsLastLines(@TempDir Path dir) {
        AtomicInteger lines = new AtomicInteger();
        List<String> command =
                List.of("/bin/sh", "-c", "for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo line $i; done; exit 3");
        assertThatThrownBy(() -> ForkedRun.run(command, dir.resolve("r.bin"), l -> lines.incrementAndGet()))
                .isInstanceOf(UserError.class)
                .hasMessageStartingWith("--fork: the JVM of a run exited with code 3; its last output:\nline 3\n")
                .hasMessageEndingWith("line 12");
        assertThat(lines).hasValue(12);
    }

    @Test
    void aChildThatExitsWithoutAResultIsReported(@TempDir Path dir) {
        assertThatThrownBy(() -> ForkedRun.run(List.of("/bin/true"), dir.resolve("r.bin"), l -> {}))
                .isInstanceOf(UserError.class)
                .hasMessageContaining("the run wrote no result to");
    }
}
