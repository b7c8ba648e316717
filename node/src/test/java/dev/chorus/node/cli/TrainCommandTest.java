package dev.chorus.node.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.learning.json.JsonReader;
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
}
