package dev.chorus.learning.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CsvLoaderTest {

    private static final Path SOURCE = Path.of("inline.csv");

    private static CsvData load(String text, CsvSchema schema) {
        return CsvLoader.load(CsvTable.parse(text, SOURCE), schema);
    }

    private static float feature(Dataset d, int row, String name) {
        return d.features()[row * d.cols() + d.featureNames().indexOf(name)];
    }

    // ------------------------------------------------------------------ real files

    @Test
    void wdbcWithPositiveClass() {
        CsvData data = CsvLoader.load(
                TestDatasets.csv("wdbc.csv"),
                CsvSchema.builder("Diagnosis").positiveClass("M").drop("ID").build());
        Dataset d = data.dataset();
        assertThat(d.rows()).isEqualTo(569);
        assertThat(d.cols()).isEqualTo(30);
        assertThat(d.classNames()).containsExactly("B", "M");
        assertThat(d.labelCounts()).containsExactly(357, 212);
        assertThat(d.featureNames()).startsWith("Radius_mean", "Texture_mean").doesNotContain("ID");
        assertThat(feature(d, 0, "Radius_mean")).isEqualTo(17.99f);
        assertThat(d.labels()[0]).isEqualTo(1);
        assertThat(data.droppedRows()).isZero();
    }

    @Test
    void columnsOfDistinctWholeNumbersAreReportedAsIdentifiers() {
        CsvData wdbc = CsvLoader.load(
                TestDatasets.csv("wdbc.csv"),
                CsvSchema.builder("Diagnosis").positiveClass("M").build());
        assertThat(wdbc.identifierColumns()).containsExactly("ID");
        assertThat(wdbc.dataset().featureNames()).as("still a feature").contains("ID");
        CsvData nwtco = CsvLoader.load(
                TestDatasets.csv("nwtco.csv"), CsvSchema.builder("rel").build());
        assertThat(nwtco.identifierColumns()).containsExactly("seqno");
        CsvData flchain = CsvLoader.load(
                TestDatasets.csv("flchain.csv"),
                CsvSchema.builder("death").positiveClass("1").drop("chapter").build());
        assertThat(flchain.identifierColumns())
                .as("futime repeats: a measurement")
                .isEmpty();
    }

    /** Seeded: 20 to 59 rows of a column of distinct whole numbers, and that column spoiled in each way that ends it. */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5})
    void anIdentifierIsEveryRowADifferentWholeNumber(long seed) {
        java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
        int rows = CsvData.IDENTIFIER_MIN_ROWS + random.nextInt(40);
        long[] ids = random.longs(0, 1L << 40).distinct().limit(rows).toArray();
        java.util.function.IntFunction<String> csv = spoil -> {
            StringBuilder b = new StringBuilder("id,x,y\n");
            for (int r = 0; r < rows; r++) {
                String id = Long.toString(ids[r]);
                if (r == rows - 1) {
                    id = switch (spoil) {
                        case 1 -> Long.toString(ids[0]); // a repeat
                        case 2 -> ids[r] + ".5"; // not whole
                        case 3 -> ""; // missing, imputed
                        default -> id;
                    };
                }
                b.append(id)
                        .append(',')
                        .append(random.nextGaussian())
                        .append(',')
                        .append(r % 2)
                        .append('\n');
            }
            return b.toString();
        };
        CsvSchema schema =
                CsvSchema.builder("y").missing(MissingValuePolicy.IMPUTE).build();
        assertThat(load(csv.apply(0), schema).identifierColumns()).containsExactly("id");
        for (int spoil = 1; spoil <= 3; spoil++) {
            assertThat(load(csv.apply(spoil), schema).identifierColumns())
                    .as("spoil %d", spoil)
                    .isEmpty();
        }
        // Too few rows to tell an identifier from a small sample of a measurement.
        String few = csv.apply(0)
                .lines()
                .limit(CsvData.IDENTIFIER_MIN_ROWS)
                .collect(java.util.stream.Collectors.joining("\n"));
        assertThat(load(few + "\n", schema).identifierColumns()).isEmpty();
    }

    @Test
    void wdbcWithoutPositiveClassSortsTheTwoValues() {
        Dataset d = CsvLoader.load(
                        TestDatasets.csv("wdbc.csv"),
                        CsvSchema.builder("Diagnosis").drop("ID").build())
                .dataset();
        assertThat(d.classNames()).containsExactly("B", "M");
        assertThat(d.labelCounts()).containsExactly(357, 212);
    }

    @Test
    void flchainDroppingRowsWithMissingCreatinine() {
        CsvData data = CsvLoader.load(
                TestDatasets.csv("flchain.csv"),
                CsvSchema.builder("death")
                        .positiveClass("1")
                        .drop("futime", "chapter")
                        .build());
        Dataset d = data.dataset();
        assertThat(d.rows()).isEqualTo(6524);
        assertThat(data.droppedRows()).isEqualTo(1350);
        assertThat(data.dropped().missingByColumn()).containsExactly(java.util.Map.entry("creatinine", 1350));
        assertThat(data.dropped().missingLabel()).isZero();
        // age, sex=F, sex=M, sample.yr, kappa, lambda, flc.grp, creatinine, mgus
        assertThat(d.cols()).isEqualTo(9);
        assertThat(d.featureNames())
                .containsExactly(
                        "age", "sex=F", "sex=M", "sample.yr", "kappa", "lambda", "flc.grp", "creatinine", "mgus");
        assertThat(d.labelCounts()).containsExactly(4562, 1962);
        assertThat(data.columns().get(1)).isInstanceOf(FeatureColumn.Categorical.class);
        assertThat(feature(d, 0, "sex=F")).isEqualTo(1f);
        assertThat(feature(d, 0, "sex=M")).isEqualTo(0f);
        assertThat(data.column("sample.yr").get(0)).isEqualTo("1997");
    }

    @Test
    void flchainImputingTheMedianOfItsOwnRows() {
        CsvData data = CsvLoader.load(
                TestDatasets.csv("flchain.csv"),
                CsvSchema.builder("death")
                        .drop("futime", "chapter")
                        .missing(MissingValuePolicy.IMPUTE)
                        .build());
        Dataset d = data.dataset();
        assertThat(d.rows()).isEqualTo(7874);
        assertThat(d.labelCounts()).containsExactly(5705, 2169);
        FeatureColumn.Numeric creatinine = (FeatureColumn.Numeric) data.columns().stream()
                .filter(c -> c.name().equals("creatinine"))
                .findFirst()
                .orElseThrow();
        assertThat(creatinine.missing()).isEqualTo(1350);
        assertThat(creatinine.imputed()).isEqualTo(1.0);
        // Line 17 of the file (row 15) is the first with an empty creatinine.
        int row = 15;
        assertThat(data.record(row).line()).isEqualTo(17);
        assertThat(data.record(row).fields().get(6)).isEmpty();
        assertThat(feature(d, row, "creatinine")).isEqualTo(1.0f);
    }

    @Test
    void flchainKeepingChapterLeavesOnlyDeathsAndFailsClearly() {
        // chapter (cause of death) is missing exactly for the survivors: keeping it as a feature
        // and dropping rows with missing values leaves one class.
        assertThatThrownBy(() -> CsvLoader.load(
                        TestDatasets.csv("flchain.csv"),
                        CsvSchema.builder("death").drop("futime").build()))
                .isInstanceOf(DataException.class)
                .hasMessageStartingWith("only one class (\"1\") in label column death of ")
                .hasMessageEndingWith(
                        "flchain.csv after dropping 5912 rows with a missing value"
                                + " (column chapter: 5705, creatinine: 1350); leave out column chapter or impute missing values")
                .satisfies(e -> assertThat(((DataException) e).remedy())
                        .contains(new DataException.Remedy.DropOrImpute(List.of("chapter"))));
    }

    @Test
    void nwtcoLogicalsAreNumbers() {
        CsvData data = CsvLoader.load(
                TestDatasets.csv("nwtco.csv"),
                CsvSchema.builder("rel").drop("seqno", "edrel").build());
        Dataset d = data.dataset();
        assertThat(d.rows()).isEqualTo(4028);
        assertThat(d.featureNames()).containsExactly("instit", "histol", "stage", "study", "age", "in.subcohort");
        assertThat(d.labelCounts()).containsExactly(3457, 571);
        int ones = 0;
        for (int r = 0; r < d.rows(); r++) {
            float v = feature(d, r, "in.subcohort");
            assertThat(v).isIn(0f, 1f);
            ones += (int) v;
        }
        assertThat(ones).isEqualTo(668);
    }

    // ------------------------------------------------------------------ encoding rules

    @Test
    void autoDetectedAndDeclaredCategoricalColumnsAreOneHot() {
        String csv = "y,colour,code,x\n1,red,3,0.5\n0,blue,10,1.5\n1,red,2,2.5\n";
        Dataset d = load(
                        csv, CsvSchema.builder("y").categorical(List.of("code")).build())
                .dataset();
        // Levels sorted, numerically for numbers.
        assertThat(d.featureNames()).containsExactly("colour=blue", "colour=red", "code=2", "code=3", "code=10", "x");
        assertThat(d.features()).containsExactly(0, 1, 0, 1, 0, 0.5f, 1, 0, 0, 0, 1, 1.5f, 0, 1, 1, 0, 0, 2.5f);
    }

    @Test
    void fixedLevelsKeepTheLayoutAndRejectOthers() {
        String csv = "y,sex\n1,F\n0,F\n";
        Dataset d = load(
                        csv,
                        CsvSchema.builder("y").levels("sex", List.of("F", "M")).build())
                .dataset();
        assertThat(d.featureNames()).containsExactly("sex=F", "sex=M");
        assertThatThrownBy(() -> load(
                        "y,sex\n1,F\n0,X\n",
                        CsvSchema.builder("y").levels("sex", List.of("F", "M")).build()))
                .isInstanceOf(DataException.class)
                .hasMessage("inline.csv line 3: value \"X\" in column sex is not one of its levels \"F\", \"M\"");
    }

    @Test
    void explicitFeatureListSelectsAndOrdersColumns() {
        Dataset d = load(
                        "a,b,y,c\n1,2,0,3\n4,5,1,6\n",
                        CsvSchema.builder("y").features(List.of("c", "a")).build())
                .dataset();
        assertThat(d.featureNames()).containsExactly("c", "a");
        assertThat(d.features()).containsExactly(3, 1, 6, 4);
    }

    @Test
    void multiClassLabelsAreSortedNumerically() {
        Dataset d = load("x,y\n1,10\n2,2\n3,9\n4,2\n", CsvSchema.builder("y").build())
                .dataset();
        assertThat(d.classNames()).containsExactly("2", "9", "10");
        assertThat(d.labels()).containsExactly(2, 0, 1, 0);
    }

    @Test
    void positiveClassMakesEverythingElseClassZero() {
        Dataset d = load(
                        "x,y\n1,a\n2,b\n3,c\n",
                        CsvSchema.builder("y").positiveClass("b").build())
                .dataset();
        assertThat(d.classNames()).containsExactly("not b", "b");
        assertThat(d.labels()).containsExactly(0, 1, 0);
    }

    @Test
    void classValuesFixTheClassesSoAOneClassShardLoads() {
        Dataset d = load(
                        "x,y\n1,B\n2,B\n",
                        CsvSchema.builder("y").classValues(List.of("B", "M")).build())
                .dataset();
        assertThat(d.classes()).isEqualTo(2);
        assertThat(d.labelCounts()).containsExactly(2, 0);
        assertThatThrownBy(() -> load(
                        "x,y\n1,B\n2,Q\n",
                        CsvSchema.builder("y").classValues(List.of("B", "M")).build()))
                .hasMessage("inline.csv line 3: label \"Q\" in column y is not one of the classes \"B\", \"M\"");
    }

    @Test
    void logicalsQuotesSpacesAndExponentsAreNumbers() {
        Dataset d = load(
                        "y,a,b,c\n1,TRUE,\" 2.5 \",-1e3\n0,false,.5,+4E-1\n",
                        CsvSchema.builder("y").build())
                .dataset();
        assertThat(d.featureNames()).containsExactly("a", "b", "c");
        assertThat(d.features()).containsExactly(1, 2.5f, -1000, 0, 0.5f, 0.4f);
    }

    @Test
    void imputationUsesMedianAndMostFrequentOfTheLoadedRows() {
        String csv = "y,n,c\n1,1,u\n0,NA,v\n1,4,\n0,10,v\n1,,v\n0,2,u\n";
        CsvData data = load(
                csv, CsvSchema.builder("y").missing(MissingValuePolicy.IMPUTE).build());
        Dataset d = data.dataset();
        assertThat(d.rows()).isEqualTo(6);
        // median of 1, 4, 10, 2 = 3; most frequent of u, v, v, v, u = v
        assertThat(data.columns().get(0)).isEqualTo(new FeatureColumn.Numeric("n", 2, 3.0));
        assertThat(data.columns().get(1)).isEqualTo(new FeatureColumn.Categorical("c", 1, List.of("u", "v"), "v"));
        assertThat(feature(d, 1, "n")).isEqualTo(3f);
        assertThat(feature(d, 2, "c=v")).isEqualTo(1f);
    }

    @Test
    void dropRowLeavesOutRowsWithMissingFeaturesButIgnoresDroppedColumns() {
        String csv = "y,n,skip\n1,1,NA\n0,NA,x\n1,4,\n0,3,y\n";
        CsvData data = load(csv, CsvSchema.builder("y").drop("skip").build());
        assertThat(data.dataset().rows()).isEqualTo(3);
        assertThat(data.tableRows()).containsExactly(0, 2, 3);
        assertThat(data.droppedRows()).isEqualTo(1);
    }

    @Test
    void rowsWithoutLabelAreDroppedEvenWhenImputing() {
        CsvData data = load(
                "y,n\n1,1\nNA,2\n,3\n0,4\n",
                CsvSchema.builder("y").missing(MissingValuePolicy.IMPUTE).build());
        assertThat(data.dataset().rows()).isEqualTo(2);
        assertThat(data.droppedRows()).isEqualTo(2);
    }

    // ------------------------------------------------------------------ errors

    @Test
    void missingFile() {
        assertThatThrownBy(() -> CsvLoader.load(
                        Path.of("no/such.csv"), CsvSchema.builder("y").build()))
                .isInstanceOf(DataException.class)
                .hasMessage("no/such.csv: file not found");
    }

    @Test
    void unknownColumnsListTheAvailableOnes() {
        String csv = "a,b,y\n1,2,0\n3,4,1\n";
        assertThatThrownBy(() -> load(csv, CsvSchema.builder("label").build()))
                .hasMessage("inline.csv: unknown label column \"label\"; available columns: a, b, y");
        assertThatThrownBy(() -> load(csv, CsvSchema.builder("y").drop("ID").build()))
                .hasMessage("inline.csv: unknown drop column \"ID\"; available columns: a, b, y");
        assertThatThrownBy(() -> load(
                        csv, CsvSchema.builder("y").categorical(List.of("sex")).build()))
                .hasMessage("inline.csv: unknown categorical column \"sex\"; available columns: a, b, y");
        assertThatThrownBy(() ->
                        load(csv, CsvSchema.builder("y").features(List.of("z")).build()))
                .hasMessageContaining("unknown feature column \"z\"");
    }

    @Test
    void nonNumericValueInDeclaredNumericColumnNamesLineAndColumn() {
        String csv = "y,n,m\n1,1,2\n0,2,3\n1,x3,4\n";
        assertThatThrownBy(() ->
                        load(csv, CsvSchema.builder("y").numeric(List.of("n")).build()))
                .isInstanceOf(DataException.class)
                .hasMessage("inline.csv line 4: non-numeric value \"x3\" in numeric column n");
        assertThatThrownBy(() -> load(
                        csv, CsvSchema.builder("y").detectCategorical(false).build()))
                .hasMessage("inline.csv line 4: non-numeric value \"x3\" in numeric column n");
    }

    @Test
    void strayStringInAMostlyNumericColumnIsAnErrorNotACategory() {
        String csv = "y,n\n1,1.5\n0,2.5\n1,2..5\n0,3\n";
        assertThatThrownBy(() -> load(csv, CsvSchema.builder("y").build()))
                .isInstanceOf(DataException.class)
                .hasMessage("inline.csv line 4: non-numeric value \"2..5\" in numeric column n");
    }

    @Test
    void mostlyStringColumnIsDetectedAsCategorical() {
        CsvData data = load("y,s\n1,a\n0,b\n1,a\n0,7\n", CsvSchema.builder("y").build());
        assertThat(data.dataset().cols()).isEqualTo(3);
    }

    @Test
    void nonFiniteValuesAreRejected() {
        assertThatThrownBy(
                        () -> load("y,n\n1,1\n0,Inf\n", CsvSchema.builder("y").build()))
                .hasMessage("inline.csv line 3: non-finite value Inf in numeric column n");
        assertThatThrownBy(
                        () -> load("y,n\n1,1\n0,1e39\n", CsvSchema.builder("y").build()))
                .hasMessage("inline.csv line 3: value 1e39 in column n is out of float range");
    }

    @Test
    void wrongFieldCountNamesTheLine() {
        assertThatThrownBy(
                        () -> load("y,n\n1,1\n0,2\n1\n", CsvSchema.builder("y").build()))
                .hasMessage("inline.csv line 4: 1 fields, expected 2 as in the header");
    }

    @Test
    void emptyDataSets() {
        assertThatThrownBy(() -> load("y,n\n", CsvSchema.builder("y").build()))
                .hasMessage("inline.csv: no data rows after the header");
        assertThatThrownBy(() -> load("y,n\n1,NA\n0,\n", CsvSchema.builder("y").build()))
                .hasMessage("inline.csv: no rows left after dropping 2 rows with a missing value (column n: 2);"
                        + " leave out column n or impute missing values");
        assertThatThrownBy(() -> load("y,n\nNA,1\n,2\n", CsvSchema.builder("y").build()))
                .hasMessage("inline.csv: no rows left after dropping 2 rows with a missing value (label y: 2)");
        assertThatThrownBy(() ->
                        load("y,a,b\n,1,2\n1,,\n0,3,\n", CsvSchema.builder("y").build()))
                .hasMessage("inline.csv: no rows left after dropping 3 rows with a missing value"
                        + " (label y: 1, column b: 2, a: 1); leave out column b or impute missing values");
        assertThatThrownBy(() -> load(
                        "y,n\n1,NA\n0,\n",
                        CsvSchema.builder("y")
                                .missing(MissingValuePolicy.IMPUTE)
                                .build()))
                .hasMessage("inline.csv: column n has no values to impute from");
        assertThatThrownBy(() ->
                        load("y,n\n1,2\n", CsvSchema.builder("y").drop("n").build()))
                .hasMessage("inline.csv: no feature columns left besides label y");
    }

    @Test
    void singleClassLabelColumn() {
        assertThatThrownBy(() -> load("x,y\n1,B\n2,B\n", CsvSchema.builder("y").build()))
                .isInstanceOf(DataException.class)
                .hasMessage("only one class (\"B\") in label column y of inline.csv");
        assertThatThrownBy(() -> load(
                        "x,y\n1,B\n2,B\n",
                        CsvSchema.builder("y").positiveClass("m").build()))
                .hasMessage("positive class \"m\" does not occur in label column y of inline.csv"
                        + " (values are case-sensitive; its values: \"B\")");
        assertThatThrownBy(() -> load(
                        "x,y\n1,B\n2,B\n",
                        CsvSchema.builder("y").positiveClass("B").build()))
                .hasMessage("only one class (\"B\") in label column y of inline.csv: every row has the positive class");
    }

    /** A member's part of a consortium's data may hold one class only: it loads, every row of that class. */
    @Test
    void aPartWithOneClassLoadsWithTheConsortiumsBinaryClasses() {
        CsvData negatives = load(
                "x,y\n1,B\n2,B\n3,B\n",
                CsvSchema.builder("y").positiveClass("M").part(true).build());
        assertThat(negatives.dataset().labels()).containsExactly(0, 0, 0);
        assertThat(negatives.dataset().classes()).isEqualTo(2);
        assertThat(negatives.dataset().classNames()).containsExactly("B", "M");
        CsvData positives = load(
                "x,y\n1,M\n2,M\n",
                CsvSchema.builder("y").positiveClass("M").part(true).build());
        assertThat(positives.dataset().labels()).containsExactly(1, 1);
        assertThat(positives.dataset().classNames()).containsExactly("not M", "M");
    }

    @Test
    void positiveClassIsCaseSensitiveAndTheMessageSaysSo() {
        assertThatThrownBy(() -> load(
                        "x,y\n1,TRUE\n2,FALSE\n3,TRUE\n",
                        CsvSchema.builder("y").positiveClass("true").build()))
                .isInstanceOf(DataException.class)
                .hasMessage("positive class \"true\" does not occur in label column y of inline.csv"
                        + " (values are case-sensitive; its values: \"TRUE\", \"FALSE\")");
    }

    @Test
    void longValuesAndLongListsAreCutInMessages() {
        String cell = "x,".repeat(500_000) + "x";
        String csv = "n,y\n1,0\n\"" + cell + "\",1\n";
        assertThatThrownBy(() ->
                        load(csv, CsvSchema.builder("y").numeric(List.of("n")).build()))
                .hasMessage("inline.csv line 3: non-numeric value \"" + cell.substring(0, 60) + "...\" ("
                        + cell.length() + " characters) in numeric column n");

        StringBuilder ids = new StringBuilder("id,y\n");
        for (int i = 0; i < 569; i++) {
            ids.append(i).append(',').append(i % 2).append('\n');
        }
        assertThatThrownBy(() -> load(
                        ids.toString(),
                        CsvSchema.builder("id").positiveClass("x").build()))
                .hasMessage("positive class \"x\" does not occur in label column id of inline.csv"
                        + " (values are case-sensitive; its values: \"0\", \"1\", \"2\", \"3\", \"4\", \"5\","
                        + " \"6\", \"7\", \"8\", \"9\" and 559 more)");
    }

    @Test
    void anIdentifierLabelIsRefusedNotTakenAsHundredsOfClasses() {
        assertThatThrownBy(() -> CsvLoader.load(
                        TestDatasets.csv("wdbc.csv"),
                        CsvSchema.builder("ID").drop("Diagnosis").build()))
                .isInstanceOf(DataException.class)
                .hasMessageStartingWith("label column ID of ")
                .hasMessageEndingWith("wdbc.csv has 569 distinct values in 569 rows: it looks like an identifier or a"
                        + " continuous value; choose a categorical label column, or a positive class for a binary task")
                .satisfies(e ->
                        assertThat(((DataException) e).remedy()).contains(new DataException.Remedy.CategoricalLabel()));
    }

    @Test
    void aContinuousLabelIsRefusedWhetherMostRowsAreDistinctOrNot() {
        java.util.Random random = new java.util.Random(7);
        StringBuilder distinct = new StringBuilder("x,y\n");
        StringBuilder repeated = new StringBuilder("x,y\n");
        for (int i = 0; i < 200; i++) {
            distinct.append(i)
                    .append(',')
                    .append(String.format(java.util.Locale.ROOT, "%.2f", random.nextGaussian()))
                    .append('\n');
            repeated.append(i).append(',').append(i % 30).append(".5\n");
        }
        assertThatThrownBy(
                        () -> load(distinct.toString(), CsvSchema.builder("y").build()))
                .hasMessageStartingWith("label column y of inline.csv has ")
                .hasMessageContaining(
                        " distinct values in 200 rows: it looks like an identifier or a continuous value");
        assertThatThrownBy(
                        () -> load(repeated.toString(), CsvSchema.builder("y").build()))
                .hasMessageStartingWith(
                        "label column y of inline.csv has 30 distinct values in 200 rows: it looks like an identifier");
    }

    @Test
    void manyWholeNumberOrNamedClassesOverManyRowsStillLoad() {
        StringBuilder numbers = new StringBuilder("x,y\n");
        StringBuilder names = new StringBuilder("x,y\n");
        for (int i = 0; i < 200; i++) {
            numbers.append(i).append(',').append(i % 50).append('\n');
            names.append(i).append(",class").append(i % 21).append('\n');
        }
        assertThat(load(numbers.toString(), CsvSchema.builder("y").build())
                        .dataset()
                        .classes())
                .isEqualTo(50);
        assertThat(load(names.toString(), CsvSchema.builder("y").build())
                        .dataset()
                        .classes())
                .isEqualTo(21);
        // Twenty classes or fewer are always classes, however few rows there are.
        StringBuilder small = new StringBuilder("x,y\n");
        for (int i = 0; i < 20; i++) {
            small.append(i).append(',').append(i).append(".5\n");
        }
        assertThat(load(small.toString(), CsvSchema.builder("y").build())
                        .dataset()
                        .classes())
                .isEqualTo(20);
        Dataset stages = CsvLoader.load(
                        TestDatasets.csv("nwtco.csv"),
                        CsvSchema.builder("stage")
                                .drop("seqno", "edrel", "in.subcohort")
                                .build())
                .dataset();
        assertThat(stages.classes()).isEqualTo(4);
    }

    @Test
    void contradictorySchemasAreRejected() {
        assertThatThrownBy(() -> CsvSchema.builder("y").drop("y").build())
                .isInstanceOf(DataException.class)
                .hasMessage("label column y is also listed as dropped");
        assertThatThrownBy(() -> CsvSchema.builder("y")
                        .categorical(List.of("a"))
                        .numeric(List.of("a"))
                        .build())
                .hasMessage("column a is listed both as categorical and numeric");
        assertThatThrownBy(() -> CsvSchema.builder("y")
                        .positiveClass("1")
                        .classValues(List.of("0", "1"))
                        .build())
                .hasMessage("give either a positive class or the class values, not both");
        assertThatThrownBy(() -> CsvSchema.builder("y").drop("a", "a").build())
                .hasMessage("a column is listed twice as dropped: [a, a]");
    }

    @Test
    void schemaGroupsClassesAndColumnsAndKeepsTheFlatAccessors() {
        ArrayList<String> drop = new ArrayList<>(List.of("ID"));
        CsvSchema schema = CsvSchema.builder("y")
                .positiveClass("M")
                .drop(drop)
                .levels("sex", List.of("F", "M"))
                .detectCategorical(false)
                .missing(MissingValuePolicy.IMPUTE)
                .build();
        drop.add("other");
        assertThat(schema.classes()).isEqualTo(new CsvSchema.Classes("M", List.of()));
        assertThat(schema.columns())
                .isEqualTo(new CsvSchema.Columns(
                        List.of(), List.of(), List.of(), List.of("ID"), Map.of("sex", List.of("F", "M")), false));
        assertThat(schema.positiveClass()).isEqualTo("M");
        assertThat(schema.classValues()).isEmpty();
        assertThat(schema.drop()).containsExactly("ID");
        assertThat(schema.levels()).containsOnlyKeys("sex");
        assertThat(schema.detectCategorical()).isFalse();
        assertThat(schema.declaredCategorical("sex")).isTrue();
        assertThat(schema.missing()).isEqualTo(MissingValuePolicy.IMPUTE);
        assertThatThrownBy(() -> schema.drop().add("x")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> new CsvSchema(
                        "y",
                        new CsvSchema.Classes(null, List.of()),
                        new CsvSchema.Columns(
                                List.of(), List.of(), List.of("n"), List.of(), Map.of("n", List.of("a")), true),
                        MissingValuePolicy.DROP_ROW))
                .isInstanceOf(DataException.class)
                .hasMessage("numeric column n is given one-hot levels");
    }

    @Test
    void floatFeaturesMatchTheTextWithinFloatPrecision() {
        CsvData data = CsvLoader.load(
                TestDatasets.csv("wdbc.csv"),
                CsvSchema.builder("Diagnosis").positiveClass("M").drop("ID").build());
        for (int row = 0; row < data.dataset().rows(); row += 37) {
            CsvRecord record = data.record(row);
            for (int c = 0; c < 30; c++) {
                double expected = Double.parseDouble(record.fields().get(c + 2));
                assertThat((double) data.dataset().features()[row * 30 + c])
                        .isCloseTo(expected, within(1e-6 * Math.abs(expected) + 1e-12));
            }
        }
    }
}
