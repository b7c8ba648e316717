package dev.chorus.learning.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class CsvTableTest {

    private static final Path SOURCE = Path.of("inline.csv");

    private static CsvTable parse(String text) {
        return CsvTable.parse(text, SOURCE);
    }

    @Test
    void quotedFieldsHoldCommasDoubledQuotesAndLineBreaks() {
        CsvTable table = parse("a,b,c\n\"x, y\",\"say \"\"hi\"\"\",\"two\nlines\"\n1,2,3\n");
        assertThat(table.header()).containsExactly("a", "b", "c");
        assertThat(table.records()).hasSize(2);
        assertThat(table.records().get(0).fields()).containsExactly("x, y", "say \"hi\"", "two\nlines");
        assertThat(table.records().get(0).line()).isEqualTo(2);
        // The record with a line break inside a field spans lines 2 and 3.
        assertThat(table.records().get(1).line()).isEqualTo(4);
        assertThat(table.records().get(0).text()).isEqualTo("\"x, y\",\"say \"\"hi\"\"\",\"two\nlines\"");
    }

    @Test
    void crlfIsALineTerminatorAndIsRemembered() {
        CsvTable table = parse("a,b\r\n1,2\r\n3,\"4\r\n5\"\r\n");
        assertThat(table.lineSeparator()).isEqualTo("\r\n");
        assertThat(table.headerText()).isEqualTo("a,b");
        assertThat(table.records()).extracting(CsvRecord::text).containsExactly("1,2", "3,\"4\r\n5\"");
        assertThat(table.records().get(1).fields()).containsExactly("3", "4\r\n5");
    }

    @Test
    void loneCarriageReturnAndMissingFinalTerminatorAreAccepted() {
        CsvTable table = parse("a,b\r1,2\r3,4");
        assertThat(table.lineSeparator()).isEqualTo("\r");
        assertThat(table.records()).extracting(CsvRecord::line).containsExactly(2, 3);
    }

    @Test
    void emptyFieldsAndTrailingCommaGiveEmptyValues() {
        CsvTable table = parse("a,b,c\n,,\n1,,\"\"\n");
        assertThat(table.records().get(0).fields()).containsExactly("", "", "");
        assertThat(table.records().get(1).fields()).containsExactly("1", "", "");
    }

    @Test
    void blankLinesAreSkippedAndLinesStillCounted() {
        CsvTable table = parse("a,b\n\n1,2\n\n\n3,4\n");
        assertThat(table.records()).extracting(CsvRecord::line).containsExactly(3, 6);
    }

    @Test
    void byteOrderMarkIsNotPartOfTheFirstColumnName() {
        CsvTable table = parse("\uFEFF\"id\",x\n1,2\n");
        assertThat(table.header()).containsExactly("id", "x");
        assertThat(table.headerText()).isEqualTo("\"id\",x");
    }

    @Test
    void wrongNumberOfFieldsNamesTheLine() {
        assertThatThrownBy(() -> parse("a,b,c\n1,2,3\n4,5\n"))
                .isInstanceOf(DataException.class)
                .hasMessage("inline.csv line 3: 2 fields, expected 3 as in the header");
        assertThatThrownBy(() -> parse("a,b\n1,2,3\n")).hasMessageContaining("line 2: 3 fields, expected 2");
    }

    @Test
    void unterminatedQuoteNamesTheLineWhereItOpens() {
        assertThatThrownBy(() -> parse("a,b\n1,2\n3,\"open\n\n"))
                .isInstanceOf(DataException.class)
                .hasMessage("inline.csv line 3: field 2 opens a quote that is never closed");
    }

    @Test
    void textAfterAClosingQuoteIsAnError() {
        assertThatThrownBy(() -> parse("a,b\n\"x\"y,2\n"))
                .isInstanceOf(DataException.class)
                .hasMessageContaining("line 2: unexpected character 'y' after the closing quote of field 1");
    }

    @Test
    void aTrailingCommaOnEveryLineIsLeftOut() {
        CsvTable table = parse("a,b,y,\n1,2,0,\n3,4,1, \n");
        assertThat(table.header()).containsExactly("a", "b", "y");
        assertThat(table.records().get(1).fields()).containsExactly("3", "4", "1");
        assertThat(table.records().get(1).text()).isEqualTo("3,4,1, ");
        assertThat(table.headerText()).isEqualTo("a,b,y,");
        CsvData data = CsvLoader.load(table, CsvSchema.builder("y").build());
        assertThat(data.dataset().featureNames()).containsExactly("a", "b");
        assertThat(data.droppedRows()).isZero();
    }

    @Test
    void aColumnWithoutANameIsAnErrorThatSaysWhichOne() {
        assertThatThrownBy(() -> parse("a,b,y,\n1,2,0,\n3,4,1,5\n"))
                .isInstanceOf(DataException.class)
                .hasMessage("inline.csv line 1: column 4 of the header has no name (a trailing comma?) but holds"
                        + " values; name it or remove them");
        assertThatThrownBy(() -> parse("a, ,y\n1,2,0\n"))
                .hasMessage("inline.csv line 1: column 2 of the header has no name; name it");
        assertThatThrownBy(() -> parse("a,,y,\n1,2,0,\n"))
                .hasMessage("inline.csv line 1: column 2 of the header has no name; name it");
        assertThat(parse("a,b,y,,\n1,2,0,,\n").header()).containsExactly("a", "b", "y");
    }

    @Test
    void emptyFileAndDuplicateColumnsAreErrors() {
        assertThatThrownBy(() -> parse("")).hasMessage("inline.csv: empty file, expected a header line");
        assertThatThrownBy(() -> parse("\n\n")).hasMessageContaining("empty file");
        assertThatThrownBy(() -> parse("a,b,a\n1,2,3\n"))
                .hasMessage("inline.csv line 1: duplicate column \"a\" in header");
    }

    @Test
    void missingFileAndNonTextFileAreClearErrors(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        assertThatThrownBy(() -> CsvTable.read(dir.resolve("nope.csv")))
                .isInstanceOf(DataException.class)
                .hasMessageEndingWith("nope.csv: file not found");
        assertThatThrownBy(() -> CsvTable.read(dir)).hasMessageContaining("is a directory");
        Path binary = dir.resolve("data.csv");
        java.nio.file.Files.write(binary, new byte[] {0x1f, (byte) 0x8b, (byte) 0xff, (byte) 0xfe, 0});
        assertThatThrownBy(() -> CsvTable.read(binary)).hasMessageContaining("not UTF-8 text");
    }

    @Test
    void columnIndexListsTheAvailableColumns() {
        CsvTable table = parse("a,b\n1,2\n");
        assertThat(table.columnIndex("b", "label")).isEqualTo(1);
        assertThatThrownBy(() -> table.columnIndex("c", "label"))
                .hasMessage("inline.csv: unknown label column \"c\"; available columns: a, b")
                .isInstanceOfSatisfying(DataException.class, e -> assertThat(e.unknownColumnRole())
                        .contains("label"));
        assertThatThrownBy(() -> table.columnIndex("d", "drop"))
                .isInstanceOfSatisfying(DataException.class, e -> assertThat(e.unknownColumnRole())
                        .contains("drop"));
        assertThat(new DataException("inline.csv: empty").unknownColumnRole()).isEmpty();
    }

    @Test
    void aWideHeaderListsTenColumnsAndHowManyMore() {
        StringBuilder header = new StringBuilder("c0");
        for (int i = 1; i < 5000; i++) {
            header.append(",c").append(i);
        }
        CsvTable table = parse(header + "\n");
        assertThatThrownBy(() -> table.columnIndex("x".repeat(100), "label"))
                .hasMessage("inline.csv: unknown label column \"" + "x".repeat(60)
                        + "...\" (100 characters); available columns: c0, c1, c2, c3, c4, c5, c6, c7, c8, c9"
                        + " and 4990 more");
    }

    @Test
    void readsTheRealFilesWithTheirHash() {
        CsvTable wdbc = CsvTable.read(TestDatasets.csv("wdbc.csv"));
        assertThat(wdbc.records()).hasSize(569);
        assertThat(wdbc.header()).hasSize(32).startsWith("ID", "Diagnosis");
        assertThat(wdbc.sha256()).isEqualTo("e425aa77f1332aafb7834a5d754d34a4c45782ecdb96f38006cc3f1c11351c3f");
        CsvTable flchain = CsvTable.read(TestDatasets.csv("flchain.csv"));
        assertThat(flchain.records()).hasSize(7874);
        assertThat(flchain.records().get(0).fields())
                .isEqualTo(List.of("97", "F", "1997", "5.7", "4.86", "10", "1.7", "0", "85", "1", "Circulatory"));
        assertThat(flchain.records().get(0).text()).isEqualTo("97,\"F\",1997,5.7,4.86,10,1.7,0,85,1,\"Circulatory\"");
        assertThat(flchain.records().get(7873).line()).isEqualTo(7875);
    }
}
