package dev.chorus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code chorus train} on data that cannot be used: one short line on standard error and exit code 2. */
class TrainCommandDataErrorTest {

    @TempDir
    Path dir;

    private static String wdbc() {
        return TestData.path("wdbc.csv").toString();
    }

    private static void assertOneLineError(CliRun run, String expected) {
        assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err().strip().lines()).hasSize(1);
        assertThat(run.err().strip()).isEqualTo("chorus: " + expected);
    }

    @Test
    void aHugeQuotedCellIsCutInTheMessage() throws IOException {
        Path csv = dir.resolve("huge.csv");
        String cell = "x,".repeat(1_000_000) + "x";
        Files.writeString(csv, "a,b,y\n1,2,0\n3,\"" + cell + "\",1\n4,5,0\n");
        CliRun run = CliRun.of("train", "--data", csv.toString(), "--label", "y");
        assertOneLineError(
                run,
                csv + " line 3: non-numeric value \"" + cell.substring(0, 60) + "...\" (" + cell.length()
                        + " characters) in numeric column b");
    }

    @Test
    void anAbsentPositiveValueIsNamedAndThePresentValuesAreListedCut() {
        CliRun run = CliRun.of("train", "--data", wdbc(), "--label", "ID", "--positive", "1");
        assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
        assertThat(run.err().strip().lines()).hasSize(1);
        assertThat(run.err())
                .startsWith("chorus: positive class \"1\" does not occur in label column ID of ")
                .contains("(values are case-sensitive; its values: \"842302\", \"842517\"")
                .endsWith(" and 559 more)" + System.lineSeparator());
        assertThat(run.err().length()).isLessThan(400);
    }

    @Test
    void anIdentifierLabelIsRefusedByTrainAndPartition() {
        String expected = "label column ID of " + wdbc() + " has 569 distinct values in 569 rows: it looks like an"
                + " identifier or a continuous value; choose a categorical label, or --positive V for a binary task";
        assertOneLineError(CliRun.of("train", "--data", wdbc(), "--label", "ID"), expected);
        Path shards = dir.resolve("shards");
        assertOneLineError(
                CliRun.of("partition", "--data", wdbc(), "--label", "ID", "--nodes", "2", "--out", shards.toString()),
                expected);
        assertThat(shards).doesNotExist();
    }

    @Test
    void oneClassLeftAfterDroppingRowsNamesTheColumnsAndTheOptionsThatKeepThem() {
        String flchain = TestData.path("flchain.csv").toString();
        assertOneLineError(
                CliRun.of("train", "--data", flchain, "--label", "death", "--positive", "1"),
                "only one class (\"1\") in label column death of " + flchain
                        + ": every row has the positive class after dropping 5912 rows with a missing value"
                        + " (column chapter: 5705, creatinine: 1350); try --drop chapter or --missing impute");
        // A --drop replaces the list: the suggestion keeps what was already left out.
        CliRun dropped =
                CliRun.of("train", "--data", flchain, "--label", "death", "--positive", "1", "--drop", "futime");
        assertThat(dropped.exitCode()).as(dropped.err()).isEqualTo(2);
        assertThat(dropped.err().strip()).endsWith("; try --drop futime,chapter or --missing impute");
    }

    @Test
    void droppedRowsAreReportedWhenLoadingSucceeds() {
        String flchain = TestData.path("flchain.csv").toString();
        String[] args = {
            "train",
            "--data",
            flchain,
            "--label",
            "death",
            "--positive",
            "1",
            "--drop",
            "futime,chapter",
            "--backend",
            "reference",
            "--epochs",
            "1"
        };
        CliRun run = CliRun.of(args);
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out())
                .contains("dropped 1350 rows with a missing value (column creatinine: 1350), of 7874 rows;"
                        + " --missing impute keeps them");

        String[] json = java.util.Arrays.copyOf(args, args.length + 1);
        json[args.length] = "--json";
        CliRun jsonRun = CliRun.of(json);
        assertThat(jsonRun.exitCode()).as(jsonRun.err()).isZero();
        assertThat(jsonRun.out().strip().lines()).hasSize(1);
        assertThat(jsonRun.out()).contains("\"droppedRows\":1350").doesNotContain("dropped 1350");
    }

    @Test
    void aTrailingCommaOnEveryLineTrainsAndPartitions() throws IOException {
        Path csv = dir.resolve("trailing.csv");
        StringBuilder text = new StringBuilder("a,b,y,\n");
        java.util.Random random = new java.util.Random(3);
        for (int i = 0; i < 100; i++) {
            double a = random.nextGaussian();
            text.append(
                    String.format(java.util.Locale.ROOT, "%.3f,%.3f,%d,%n", a, random.nextGaussian(), a > 0 ? 1 : 0));
        }
        Files.writeString(csv, text);
        CliRun train =
                CliRun.of("train", "--data", csv.toString(), "--label", "y", "--backend", "reference", "--epochs", "1");
        assertThat(train.exitCode()).as(train.err()).isZero();
        assertThat(train.out()).contains("80 training rows, 20 test rows, 2 features, 2 classes");
        Path shards = dir.resolve("shards");
        CliRun partition = CliRun.of(
                "partition", "--data", csv.toString(), "--label", "y", "--nodes", "2", "--out", shards.toString());
        assertThat(partition.exitCode()).as(partition.err()).isZero();
        assertThat(Files.readAllLines(shards.resolve("node-000.csv")).getFirst())
                .isEqualTo("a,b,y,");
    }

    @Test
    void idxWithoutADirectoryIsAOneLineError() {
        String expected = "--format idx needs --data DIR, a directory of IDX files (train-*, t10k-*)";
        assertOneLineError(CliRun.of("train", "--format", "idx", "--epochs", "2"), expected);
        assertOneLineError(
                CliRun.of(
                        "partition",
                        "--format",
                        "idx",
                        "--nodes",
                        "2",
                        "--out",
                        dir.resolve("s").toString()),
                expected);
    }

    @Test
    void csvLabelOptionsAreRefusedForIdxData() {
        assertOneLineError(
                CliRun.of("train", "--data", dir.toString(), "--format", "idx", "--positive", "3"),
                "--positive applies to CSV labels; IDX data keeps its classes (the label bytes)");
        assertOneLineError(
                CliRun.of("train", "--data", dir.toString(), "--label", "y"),
                "--label applies to CSV files; IDX data has its labels in the *-labels-idx1-ubyte file");
        String missing = "--missing applies to CSV files; IDX data has no missing values (every pixel is a byte)";
        assertOneLineError(CliRun.of("train", "--data", dir.toString(), "--missing", "impute"), missing);
        assertOneLineError(
                CliRun.of(
                        "partition",
                        "--data",
                        dir.toString(),
                        "--format",
                        "idx",
                        "--missing",
                        "drop",
                        "--nodes",
                        "2",
                        "--out",
                        dir.resolve("s").toString()),
                missing);
        assertThat(dir.resolve("s")).doesNotExist();
    }

    /**
     * partition copies CSV rows as they are, missing values and all, whatever --missing says: it is refused rather
     * than ignored, before anything is written.
     */
    @Test
    void missingIsRefusedByPartitionOfACsv() {
        Path shards = dir.resolve("s");
        String expected = "--missing does not apply to partition: rows are copied as they are, and each node applies"
                + " its own data.missing";
        for (String policy : new String[] {"impute", "drop"}) {
            assertOneLineError(
                    CliRun.of(
                            "partition",
                            "--data",
                            wdbc(),
                            "--label",
                            "Diagnosis",
                            "--missing",
                            policy,
                            "--nodes",
                            "2",
                            "--out",
                            shards.toString()),
                    expected);
            assertOneLineError(
                    CliRun.of("partition", "--missing", policy, "--nodes", "2", "--out", shards.toString()), expected);
        }
        assertThat(shards).doesNotExist();
    }

    /** --idx-prefix would be ignored with CSV data, as the CSV options would with IDX data: it is refused. */
    @Test
    void idxPrefixIsRefusedForCsvData() {
        String expected =
                "--idx-prefix applies to IDX directories; CSV data is one file, with no IDX file pair to choose";
        assertOneLineError(
                CliRun.of("train", "--data", wdbc(), "--label", "Diagnosis", "--idx-prefix", "node-000"), expected);
        assertOneLineError(CliRun.of("train", "--idx-prefix", "train"), expected);
        Path shards = dir.resolve("s");
        assertOneLineError(
                CliRun.of(
                        "partition",
                        "--data",
                        wdbc(),
                        "--format",
                        "csv",
                        "--label",
                        "Diagnosis",
                        "--idx-prefix",
                        "node-000",
                        "--nodes",
                        "2",
                        "--out",
                        shards.toString()),
                expected);
        assertThat(shards).doesNotExist();
    }

    /** --drop and --categorical would be ignored with IDX data as --missing would: each is refused by name. */
    @Test
    void csvColumnOptionsAreRefusedForIdxData() {
        String drop = "--drop applies to CSV files; IDX data has no columns to leave out (every pixel is a feature)";
        String categorical =
                "--categorical applies to CSV files; IDX data has no categorical columns (every pixel is a number)";
        assertOneLineError(CliRun.of("train", "--data", dir.toString(), "--drop", "pixel0"), drop);
        assertOneLineError(
                CliRun.of("train", "--data", dir.toString(), "--format", "idx", "--categorical", "pixel0"),
                categorical);
        Path shards = dir.resolve("s");
        for (String[] option : new String[][] {{"--drop", "pixel0", drop}, {"--categorical", "pixel0", categorical}}) {
            assertOneLineError(
                    CliRun.of(
                            "partition",
                            "--data",
                            dir.toString(),
                            option[0],
                            option[1],
                            "--nodes",
                            "2",
                            "--out",
                            shards.toString()),
                    option[2]);
        }
        assertThat(shards).doesNotExist();
    }

    /** The bundled data set is read from a temporary copy, deleted by the time the error is printed. */
    @Test
    void errorsOnTheBundledDataNameItAndNotItsTemporaryCopy() {
        CliRun unknown = CliRun.of("train", "--label", "NOPE");
        assertThat(unknown.exitCode()).as(unknown.err()).isEqualTo(2);
        assertThat(unknown.err().strip().lines()).hasSize(1);
        assertThat(unknown.err())
                .startsWith("chorus: wdbc.csv (bundled): unknown label column \"NOPE\"; available columns: ID,")
                .doesNotContain("chorus-wdbc", System.getProperty("java.io.tmpdir"));
        // With a remedy worded in the options.
        assertOneLineError(
                CliRun.of("train", "--label", "ID"),
                "label column ID of wdbc.csv (bundled) has 569 distinct values in 569 rows: it looks like an"
                        + " identifier or a continuous value; choose a categorical label, or --positive V for a"
                        + " binary task");
    }
}
