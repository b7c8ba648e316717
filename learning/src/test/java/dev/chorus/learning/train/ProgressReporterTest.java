package dev.chorus.learning.train;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.learning.data.Dataset;
import dev.chorus.learning.model.ModelSpec;
import dev.chorus.learning.model.Sequential;
import dev.chorus.learning.optim.Sgd;
import dev.chorus.learning.tensor.reference.ReferenceBackend;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProgressReporterTest {

    private static void run(ProgressReporter reporter, int epochs, long nanosPerReading) {
        Dataset data = TrainerTest.separable(1, 40, 2);
        long[] now = {0};
        try (Sequential model = ModelSpec.parse("logreg").build(new ReferenceBackend(), 2, 2, 1)) {
            new Trainer(model, new Sgd(), new TrainingConfig(epochs, 4, 1))
                    .progress(reporter)
                    .clock(() -> now[0] += nanosPerReading)
                    .train(data);
        }
    }

    @Test
    void jsonLinesWritesOneObjectPerEpoch() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        run(new JsonLinesProgress(new PrintStream(bytes, true, StandardCharsets.UTF_8)), 3, 10_000_000L);
        List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(lines).hasSize(3);
        // 40 rows in batches of 4: 10 steps per epoch, 12 clock readings of 10 ms each.
        assertThat(lines.get(0))
                .matches("\\{\"epoch\":1,\"epochs\":3,\"steps\":10,\"samples\":40,\"loss\":0\\.[0-9]+(E-[0-9]+)?,"
                        + "\"seconds\":0\\.11,\"samples_per_second\":363\\.6[0-9]*\\}");
        assertThat(lines.get(2)).startsWith("{\"epoch\":3,\"epochs\":3,\"steps\":30,");
    }

    @Test
    void nonFiniteNumbersBecomeNull() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        new JsonLinesProgress(new PrintStream(bytes, true, StandardCharsets.UTF_8))
                .epochCompleted(new EpochSummary(1, 1, 5, 10, Double.NaN, 0));
        assertThat(bytes.toString(StandardCharsets.UTF_8).strip())
                .isEqualTo("{\"epoch\":1,\"epochs\":1,\"steps\":5,\"samples\":10,\"loss\":null,\"seconds\":0.0,"
                        + "\"samples_per_second\":0.0}");
    }

    @Test
    void progressBarRedrawsInPlaceAndEndsEachEpochOnItsOwnLine() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        // 50 ms per clock reading: the bar may redraw every other step (100 ms apart).
        run(new ProgressBar(new PrintStream(bytes, true, StandardCharsets.UTF_8), 10), 2, 50_000_000L);
        String out = bytes.toString(StandardCharsets.UTF_8);
        // String.lines() would also split at the carriage returns.
        List<String> lines = List.of(out.split(System.lineSeparator()));
        assertThat(lines).hasSize(2);
        String[] frames = lines.get(0).split("\r");
        // The leading empty string, then 5 throttled redraws of 10 steps, then the final frame.
        assertThat(frames).hasSize(1 + 5 + 1);
        assertThat(frames[1]).startsWith("epoch 1/2 [#---------]  10% loss ");
        assertThat(frames[6]).startsWith("epoch 1/2 [##########] 100% loss ").endsWith("samples/s  0.6s");
        assertThat(lines.get(1)).contains("epoch 2/2 [##########] 100%");
    }

    @Test
    void theTerminalBarIsQuietWithoutAConsole() {
        // Under the test runner, standard output is a pipe, not a terminal.
        assertThat(ProgressBar.forTerminal()).isSameAs(ProgressReporter.quiet());
    }
}
