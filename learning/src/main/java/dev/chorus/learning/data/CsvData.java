package dev.chorus.learning.data;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A CSV file loaded under a schema: the {@link Dataset}, the source table it came from, which
 * record each data set row is, and how each column was encoded.
 *
 * @param dataset the features and labels
 * @param table the parsed file, with the original text of every record
 * @param schema the schema it was loaded under
 * @param tableRows for each data set row, the index of its record in {@code table.records()}
 * @param columns the encoding of each feature column, in feature order
 * @param dropped records left out (missing label, or a missing value under {@link
 *     MissingValuePolicy#DROP_ROW}), and why
 * @param identifierColumns feature columns that look like row identifiers rather than measurements (a different
 *     whole number in every row, none missing, at least {@link #IDENTIFIER_MIN_ROWS} rows): a record number or a
 *     patient ID. They are loaded as features all the same (a real measurement can look so), and a tool may warn.
 */
public record CsvData(
        Dataset dataset,
        CsvTable table,
        CsvSchema schema,
        int[] tableRows,
        List<FeatureColumn> columns,
        DroppedRows dropped,
        List<String> identifierColumns) {

    /** The fewest rows in which a column of distinct whole numbers counts as an identifier. */
    public static final int IDENTIFIER_MIN_ROWS = 20;

    public CsvData {
        Objects.requireNonNull(dataset, "dataset");
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(schema, "schema");
        Objects.requireNonNull(dropped, "dropped");
        columns = List.copyOf(columns);
        identifierColumns = List.copyOf(identifierColumns);
        if (tableRows.length != dataset.rows()) {
            throw new IllegalArgumentException(tableRows.length + " table rows for " + dataset.rows() + " data rows");
        }
    }

    /** The number of records left out. */
    public int droppedRows() {
        return dropped.rows();
    }

    /** The record that data set row {@code row} came from. */
    public CsvRecord record(int row) {
        return table.records().get(tableRows[row]);
    }

    /**
     * The values of column {@code name} (any column of the file, used or not), one per data set
     * row, stripped of surrounding spaces.
     */
    public List<String> column(String name) {
        int index = table.columnIndex(name, "partition");
        List<String> values = new ArrayList<>(tableRows.length);
        for (int tableRow : tableRows) {
            values.add(table.records().get(tableRow).value(index));
        }
        return values;
    }
}
