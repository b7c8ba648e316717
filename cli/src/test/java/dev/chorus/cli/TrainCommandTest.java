package dev.chorus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.learning.json.JsonReader;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TrainCommandTest {

    @SuppressWarnings("unchecked")
    private static Map<String, Object> json(String text) {
        return (Map<String, Object>) JsonReader.parse(text.strip());
    }

    @Test
    void trainsOnTheBundledDataSetAndPrintsJson() {
        CliRun run = CliRun.of("train", "--json", "--seed", "7");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out().strip().lines()).hasSize(1);
        Map<String, Object> result = json(run.out());
        assertThat(result)
                .containsKeys("accuracy", "auc", "loss", "samplesPerSecond", "backend", "seed")
                .containsEntry("seed", 7L)
                .containsEntry("trainRows", 455L)
                .containsEntry("testRows", 114L);
        assertThat(((Number) result.get("accuracy")).doubleValue()).isGreaterThan(0.93);
        assertThat(((Number) result.get("auc")).doubleValue()).isGreaterThan(0.97);
        assertThat(((Number) result.get("samplesPerSecond")).doubleValue()).isPositive();
    }

    @Test
    void sameSeedGivesTheSameResult() {
        String[] args = {"train", "--json", "--backend", "reference", "--model", "mlp:8", "--epochs", "3"};
        Map<String, Object> a = json(CliRun.of(args).out());
        Map<String, Object> b = json(CliRun.of(args).out());
        assertThat(a.get("loss")).isEqualTo(b.get("loss"));
        assertThat(a.get("accuracy")).isEqualTo(b.get("accuracy"));
    }

    @Test
    void realClinicalCsvWithMissingValuesAndCategoricalColumns() {
        CliRun run = CliRun.of(
                "train",
                "--data",
                TestData.path("flchain.csv").toString(),
                "--label",
                "death",
                "--positive",
                "1",
                "--drop",
                "futime,chapter",
                "--missing",
                "impute",
                "--model",
                "logreg",
                "--epochs",
                "5",
                "--json");
        assertThat(run.exitCode()).as(run.err()).isZero();
        Map<String, Object> result = json(run.out());
        assertThat(result).containsEntry("trainRows", 6299L).containsEntry("classes", 2L);
        assertThat(((Number) result.get("auc")).doubleValue()).isGreaterThan(0.8);
    }

    @Test
    void humanOutputShowsAccuracyAndConfusionMatrix() {
        CliRun run = CliRun.of("train", "--backend", "reference", "--epochs", "2");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out())
                .contains("455 training rows, 114 test rows, 30 features, 2 classes")
                .contains("test accuracy")
                .contains("ROC AUC")
                .contains("confusion matrix");
    }

    /** nwtco's first column, seqno, numbers the records: train says so, and says how to leave it out. */
    @Test
    void aColumnThatLooksLikeARowIdentifierIsNamed() {
        String nwtco = TestData.path("nwtco.csv").toString();
        String[] args = {"train", "--data", nwtco, "--label", "rel", "--backend", "reference", "--epochs", "1"};
        CliRun text = CliRun.of(args);
        assertThat(text.exitCode()).as(text.err()).isZero();
        assertThat(text.out())
                .contains("note: column seqno looks like a row identifier (a different whole number in each of the"
                        + " 4028 rows) and is used as a feature; --drop seqno leaves it out");
        CliRun json = CliRun.of(append(args, "--json"));
        assertThat(json(json.out())).containsEntry("identifierColumns", List.of("seqno"));

        CliRun dropped = CliRun.of(append(args, "--drop", "seqno", "--json"));
        assertThat(json(dropped.out())).containsEntry("identifierColumns", List.of());
        // The bundled data set drops its ID column by default; named as a feature, it is the note's.
        CliRun bundled = CliRun.of("train", "--label", "Diagnosis", "--backend", "reference", "--epochs", "1");
        assertThat(bundled.out())
                .contains("note: column ID looks like a row identifier")
                .contains("--drop ID");
        assertThat(CliRun.of("train", "--backend", "reference", "--epochs", "1").out())
                .doesNotContain("row identifier");
    }

    private static String[] append(String[] args, String... more) {
        String[] all = Arrays.copyOf(args, args.length + more.length);
        System.arraycopy(more, 0, all, args.length, more.length);
        return all;
    }
}
