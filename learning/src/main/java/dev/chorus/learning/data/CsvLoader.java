package dev.chorus.learning.data;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Loads a CSV file into a {@link Dataset} as a {@link CsvSchema} says.
 *
 * <p>Values: {@code NA} and empty fields are missing; {@code TRUE}/{@code FALSE} (any case, as R
 * and Python write logicals) are 1 and 0; numbers follow the usual decimal grammar ({@code -1.5e3});
 * {@code NaN} and infinities are rejected. Imputed medians and modes are computed over the rows of
 * this file that are loaded, so a node never uses a statistic of another node's data.
 *
 * <p>Errors raise {@link DataException} with the file, line and column: unknown columns (listing
 * the available ones), a non-number in a numeric column, a label column with a single class or with
 * so many distinct values that it looks like an identifier or a continuous value, no rows.
 */
public final class CsvLoader {

    private static final Pattern NUMBER = Pattern.compile("[+-]?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?");
    private static final Set<String> NON_FINITE =
            Set.of("nan", "inf", "+inf", "-inf", "infinity", "+infinity", "-infinity");

    /** Label columns with at most this many distinct values are always taken as classes. */
    static final int MAX_PLAIN_CLASSES = 20;

    private CsvLoader() {}

    /** Reads {@code file} and loads it. */
    public static CsvData load(Path file, CsvSchema schema) {
        return load(CsvTable.read(file), schema);
    }

    /** Loads an already parsed table. */
    public static CsvData load(CsvTable table, CsvSchema schema) {
        return new Load(table, schema).run();
    }

    /** Whether {@code value} (stripped, not missing) reads as a number, a logical or a non-finite number. */
    static boolean looksNumeric(String value) {
        return NUMBER.matcher(value).matches()
                || isLogical(value)
                || NON_FINITE.contains(value.toLowerCase(Locale.ROOT));
    }

    private static boolean isLogical(String value) {
        return value.equalsIgnoreCase("true") || value.equalsIgnoreCase("false");
    }

    /**
     * The order of a column's distinct values: numeric when all of them are numbers or logicals
     * ({@code 2 < 10}), else by string. Used for class indices, one-hot levels and column shards.
     */
    public static Comparator<String> valueOrder(Iterable<String> values) {
        for (String value : values) {
            if (!NUMBER.matcher(value).matches() && !isLogical(value)) {
                return Comparator.naturalOrder();
            }
        }
        return Comparator.comparingDouble(CsvLoader::numberOf).thenComparing(Comparator.naturalOrder());
    }

    private static double numberOf(String value) {
        if (isLogical(value)) {
            return value.equalsIgnoreCase("true") ? 1 : 0;
        }
        return Double.parseDouble(value);
    }

    /** The state of loading one table. */
    private static final class Load {
        private final CsvTable table;
        private final CsvSchema schema;
        private final List<CsvRecord> records;
        private final String where;
        private DroppedRows dropped = DroppedRows.NONE;

        Load(CsvTable table, CsvSchema schema) {
            this.table = table;
            this.schema = schema;
            this.records = table.records();
            this.where = String.valueOf(table.source());
        }

        CsvData run() {
            int labelColumn = checkNamedColumns();
            List<Integer> featureColumns = featureColumns(labelColumn);
            if (records.isEmpty()) {
                throw new DataException(where + ": no data rows after the header");
            }
            boolean[] labelled = labelledRows(labelColumn);
            List<ColumnValues> columns = new ArrayList<>();
            for (int c : featureColumns) {
                columns.add(columnValues(c));
            }
            int[] rows = keptRows(labelled, columns);

            List<FeatureColumn> encodings = new ArrayList<>();
            for (ColumnValues column : columns) {
                encodings.add(column.encode(rows));
            }
            List<String> featureNames = featureNames(columns, encodings);
            float[] features = featureMatrix(columns, encodings, rows, featureNames.size());

            Labels labels = labels(labelColumn, rows);
            Dataset dataset = new Dataset(
                    features,
                    rows.length,
                    featureNames.size(),
                    labels.classes,
                    labels.names.size(),
                    featureNames,
                    labels.names);
            return new CsvData(dataset, table, schema, rows, encodings, dropped, identifiers(columns, rows));
        }

        /** The label column's index, after checking that every column the schema names is in the header. */
        private int checkNamedColumns() {
            int labelColumn = table.columnIndex(schema.label(), "label");
            schema.drop().forEach(c -> table.columnIndex(c, "drop"));
            schema.categorical().forEach(c -> table.columnIndex(c, "categorical"));
            schema.numeric().forEach(c -> table.columnIndex(c, "numeric"));
            schema.features().forEach(c -> table.columnIndex(c, "feature"));
            schema.levels().keySet().forEach(c -> table.columnIndex(c, "categorical"));
            return labelColumn;
        }

        /** The indices of the feature columns: those the schema lists, else all but the label and dropped ones. */
        private List<Integer> featureColumns(int labelColumn) {
            List<Integer> featureColumns = new ArrayList<>();
            if (schema.features().isEmpty()) {
                for (int c = 0; c < table.header().size(); c++) {
                    String name = table.header().get(c);
                    if (c != labelColumn && !schema.drop().contains(name)) {
                        featureColumns.add(c);
                    }
                }
            } else {
                schema.features().forEach(c -> featureColumns.add(table.header().indexOf(c)));
            }
            if (featureColumns.isEmpty()) {
                throw new DataException(where + ": no feature columns left besides label " + schema.label());
            }
            return featureColumns;
        }

        /** Which records have a label. */
        private boolean[] labelledRows(int labelColumn) {
            boolean[] labelled = new boolean[records.size()];
            for (int r = 0; r < records.size(); r++) {
                labelled[r] = !CsvTable.isMissing(records.get(r).value(labelColumn));
            }
            return labelled;
        }

        /**
         * The records to load: those with a label and, under {@link MissingValuePolicy#DROP_ROW}, no missing
         * feature; records why the others were dropped in {@link #dropped}.
         */
        private int[] keptRows(boolean[] labelled, List<ColumnValues> columns) {
            int missingLabel = 0;
            for (boolean l : labelled) {
                missingLabel += l ? 0 : 1;
            }
            boolean[] keep = labelled.clone();
            Map<String, Integer> missingByColumn = new LinkedHashMap<>();
            if (schema.missing() == MissingValuePolicy.DROP_ROW) {
                for (ColumnValues column : columns) {
                    int missing = 0;
                    for (int r = 0; r < keep.length; r++) {
                        if (labelled[r] && column.missing(r)) {
                            missing++;
                            keep[r] = false;
                        }
                    }
                    if (missing > 0) {
                        missingByColumn.put(column.name, missing);
                    }
                }
            }
            int[] rows = indicesOf(keep);
            dropped = new DroppedRows(records.size() - rows.length, missingLabel, missingByColumn);
            if (rows.length == 0) {
                throw droppedTooMany(where + ": no rows left");
            }
            return rows;
        }

        /** One name per feature: the column's, or {@code column=level} for each level of a one-hot column. */
        private static List<String> featureNames(List<ColumnValues> columns, List<FeatureColumn> encodings) {
            List<String> featureNames = new ArrayList<>();
            for (int j = 0; j < columns.size(); j++) {
                String name = columns.get(j).name;
                if (encodings.get(j) instanceof FeatureColumn.Categorical categorical) {
                    categorical.levels().forEach(level -> featureNames.add(name + "=" + level));
                } else {
                    featureNames.add(name);
                }
            }
            return featureNames;
        }

        /** The encoded features of {@code rows}, row-major, {@code width} per row. */
        private static float[] featureMatrix(
                List<ColumnValues> columns, List<FeatureColumn> encodings, int[] rows, int width) {
            float[] features = new float[rows.length * width];
            for (int i = 0; i < rows.length; i++) {
                int offset = i * width;
                for (int j = 0; j < columns.size(); j++) {
                    offset = columns.get(j).fill(rows[i], encodings.get(j), features, offset);
                }
            }
            return features;
        }

        /** The feature columns that look like record numbers or IDs over {@code rows}. */
        private static List<String> identifiers(List<ColumnValues> columns, int[] rows) {
            List<String> identifiers = new ArrayList<>();
            for (ColumnValues column : columns) {
                if (column.looksLikeIdentifier(rows)) {
                    identifiers.add(column.name);
                }
            }
            return identifiers;
        }

        /**
         * An error about the rows left after dropping: {@code problem}, what was dropped and why,
         * and, when missing feature values dropped rows, the remedy of leaving out the column that
         * dropped the most or imputing.
         */
        private DataException droppedTooMany(String problem) {
            if (dropped.rows() == 0) {
                return new DataException(problem);
            }
            String message = problem + " after dropping " + dropped.describe(schema.label());
            if (dropped.missingByColumn().isEmpty()) {
                return new DataException(message);
            }
            return new DataException(message, new DataException.Remedy.DropOrImpute(dropped.worstColumns()));
        }

        private record Labels(int[] classes, List<String> names) {}

        private Labels labels(int labelColumn, int[] rows) {
            String column = schema.label();
            String[] values = new String[rows.length];
            Set<String> distinct = new LinkedHashSet<>();
            for (int i = 0; i < rows.length; i++) {
                values[i] = records.get(rows[i]).value(labelColumn);
                distinct.add(values[i]);
            }
            int[] classes = new int[rows.length];
            if (!schema.classValues().isEmpty()) {
                List<String> names = schema.classValues();
                for (int i = 0; i < rows.length; i++) {
                    classes[i] = names.indexOf(values[i]);
                    if (classes[i] < 0) {
                        throw new DataException(
                                where + " line " + records.get(rows[i]).line() + ": label "
                                        + Excerpt.quote(values[i]) + " in column " + Excerpt.name(column)
                                        + " is not one of the classes " + Excerpt.quoted(names));
                    }
                }
                return new Labels(classes, names);
            }
            if (schema.positiveClass() != null) {
                String positive = schema.positiveClass();
                Set<String> others = new LinkedHashSet<>(distinct);
                others.remove(positive);
                if (!distinct.contains(positive) && !schema.part()) {
                    throw droppedTooMany("positive class " + Excerpt.quote(positive)
                            + " does not occur in label column " + Excerpt.name(column) + " of " + where
                            + " (values are case-sensitive; its values: " + describe(distinct) + ")");
                }
                if (others.isEmpty() && !schema.part()) {
                    throw droppedTooMany("only one class (" + describe(distinct) + ") in label column "
                            + Excerpt.name(column) + " of " + where + ": every row has the positive class");
                }
                for (int i = 0; i < rows.length; i++) {
                    classes[i] = values[i].equals(positive) ? 1 : 0;
                }
                String negative = others.size() == 1 ? others.iterator().next() : "not " + positive;
                return new Labels(classes, List.of(negative, positive));
            }
            if (distinct.size() < 2) {
                throw droppedTooMany("only one class (" + describe(distinct) + ") in label column "
                        + Excerpt.name(column) + " of " + where);
            }
            if (looksLikeIdentifierOrContinuous(distinct, rows.length)) {
                throw new DataException(
                        "label column " + Excerpt.name(column) + " of " + where + " has " + distinct.size()
                                + " distinct values in " + rows.length
                                + " rows: it looks like an identifier or a continuous value",
                        new DataException.Remedy.CategoricalLabel());
            }
            List<String> names = new ArrayList<>(distinct);
            names.sort(valueOrder(names));
            Map<String, Integer> index = new HashMap<>();
            for (int k = 0; k < names.size(); k++) {
                index.put(names.get(k), k);
            }
            for (int i = 0; i < rows.length; i++) {
                classes[i] = index.get(values[i]);
            }
            return new Labels(classes, names);
        }

        /**
         * Whether label values taken as classes would make a classifier with hundreds of classes that
         * learns nothing: more than {@value CsvLoader#MAX_PLAIN_CLASSES} distinct values and either more than
         * half of the rows distinct (an identifier, or a measurement) or numbers that are not all
         * whole (a continuous value). Real multi-class labels have few classes, each over many rows,
         * and whole-number or named classes, so the rule does not fire on them.
         */
        private static boolean looksLikeIdentifierOrContinuous(Set<String> distinct, int rows) {
            if (distinct.size() <= MAX_PLAIN_CLASSES) {
                return false;
            }
            if (2L * distinct.size() > rows) {
                return true;
            }
            for (String value : distinct) {
                if (!NUMBER.matcher(value).matches() && !isLogical(value)) {
                    return false;
                }
            }
            for (String value : distinct) {
                double number = numberOf(value);
                if (number != Math.rint(number)) {
                    return true;
                }
            }
            return false;
        }

        private static String describe(Set<String> values) {
            return values.isEmpty() ? "none" : Excerpt.quoted(values);
        }

        private ColumnValues columnValues(int c) {
            String name = table.header().get(c);
            String[] raw = new String[records.size()];
            int numeric = 0;
            int nonNumeric = 0;
            for (int r = 0; r < raw.length; r++) {
                String value = records.get(r).value(c);
                raw[r] = CsvTable.isMissing(value) ? null : value;
                if (raw[r] != null) {
                    if (looksNumeric(raw[r])) {
                        numeric++;
                    } else {
                        nonNumeric++;
                    }
                }
            }
            // A column is detected as categorical only when most of its values are not numbers: a
            // numeric column with a few stray strings is a data error to report (line and column),
            // not a reason to one-hot encode hundreds of distinct numbers.
            boolean detected = nonNumeric > 0 && nonNumeric >= numeric;
            boolean categorical = schema.declaredCategorical(name)
                    || (!schema.numeric().contains(name) && schema.detectCategorical() && detected);
            return categorical ? new ColumnValues(name, raw, null) : new ColumnValues(name, raw, numbers(name, raw));
        }

        private double[] numbers(String name, String[] raw) {
            double[] numbers = new double[raw.length];
            for (int r = 0; r < raw.length; r++) {
                String value = raw[r];
                if (value == null) {
                    numbers[r] = Double.NaN;
                } else if (isLogical(value)) {
                    numbers[r] = value.equalsIgnoreCase("true") ? 1 : 0;
                } else if (NUMBER.matcher(value).matches()) {
                    numbers[r] = Double.parseDouble(value);
                    if (!Float.isFinite((float) numbers[r])) {
                        throw new DataException(
                                where + " line " + records.get(r).line() + ": value " + Excerpt.name(value)
                                        + " in column " + Excerpt.name(name) + " is out of float range");
                    }
                } else if (NON_FINITE.contains(value.toLowerCase(Locale.ROOT))) {
                    throw new DataException(where + " line " + records.get(r).line() + ": non-finite value " + value
                            + " in numeric column " + name);
                } else {
                    throw new DataException(where + " line " + records.get(r).line() + ": non-numeric value "
                            + Excerpt.quote(value) + " in numeric column " + Excerpt.name(name));
                }
            }
            return numbers;
        }

        /** One feature column's values over all records: numbers (NaN = missing) or strings (null = missing). */
        private final class ColumnValues {
            final String name;
            final String[] raw;
            final double[] numbers;

            ColumnValues(String name, String[] raw, double[] numbers) {
                this.name = name;
                this.raw = raw;
                this.numbers = numbers;
            }

            boolean missing(int record) {
                return raw[record] == null;
            }

            /**
             * Whether this numeric column has a different whole number in every one of {@code rows} (at least
             * {@link CsvData#IDENTIFIER_MIN_ROWS} of them), none missing: a record number or patient ID rather
             * than a measurement.
             */
            boolean looksLikeIdentifier(int[] rows) {
                if (numbers == null || rows.length < CsvData.IDENTIFIER_MIN_ROWS) {
                    return false;
                }
                double[] values = new double[rows.length];
                for (int i = 0; i < rows.length; i++) {
                    double v = numbers[rows[i]];
                    if (Double.isNaN(v) || v != Math.rint(v)) {
                        return false;
                    }
                    values[i] = v;
                }
                Arrays.sort(values);
                for (int i = 1; i < values.length; i++) {
                    if (values[i] == values[i - 1]) {
                        return false;
                    }
                }
                return true;
            }

            FeatureColumn encode(int[] rows) {
                int missing = 0;
                for (int r : rows) {
                    if (missing(r)) {
                        missing++;
                    }
                }
                if (numbers != null) {
                    double imputed = missing > 0 ? median(rows) : Double.NaN;
                    return new FeatureColumn.Numeric(name, missing, imputed);
                }
                List<String> levels = schema.levels().get(name);
                Map<String, Integer> counts = new TreeMap<>();
                for (int r : rows) {
                    if (!missing(r)) {
                        counts.merge(raw[r], 1, Integer::sum);
                    }
                }
                if (levels == null) {
                    levels = new ArrayList<>(counts.keySet());
                    levels.sort(valueOrder(levels));
                } else {
                    for (int r : rows) {
                        if (!missing(r) && !levels.contains(raw[r])) {
                            throw new DataException(
                                    where + " line " + records.get(r).line() + ": value "
                                            + Excerpt.quote(raw[r]) + " in column " + Excerpt.name(name)
                                            + " is not one of its levels " + Excerpt.quoted(levels));
                        }
                    }
                }
                if (levels.isEmpty()) {
                    throw new DataException(where + ": column " + name + " has no values to impute from");
                }
                String imputed = null;
                if (missing > 0) {
                    int best = -1;
                    for (String level : levels) {
                        int count = counts.getOrDefault(level, 0);
                        if (count > best) {
                            best = count;
                            imputed = level;
                        }
                    }
                }
                return new FeatureColumn.Categorical(name, missing, levels, imputed);
            }

            private double median(int[] rows) {
                double[] present = Arrays.stream(rows)
                        .filter(r -> !missing(r))
                        .mapToDouble(r -> numbers[r])
                        .sorted()
                        .toArray();
                if (present.length == 0) {
                    throw new DataException(where + ": column " + name + " has no values to impute from");
                }
                int mid = present.length / 2;
                return present.length % 2 == 1 ? present[mid] : (present[mid - 1] + present[mid]) / 2;
            }

            /** Writes record {@code r}'s features at {@code offset}; returns the offset after them. */
            int fill(int r, FeatureColumn encoding, float[] out, int offset) {
                switch (encoding) {
                    case FeatureColumn.Numeric numeric -> {
                        out[offset] = (float) (missing(r) ? numeric.imputed() : numbers[r]);
                        return offset + 1;
                    }
                    case FeatureColumn.Categorical categorical -> {
                        String value = missing(r) ? categorical.imputed() : raw[r];
                        int level = categorical.levels().indexOf(value);
                        out[offset + level] = 1f;
                        return offset + categorical.width();
                    }
                }
            }
        }
    }

    private static int[] indicesOf(boolean[] mask) {
        int count = 0;
        for (boolean b : mask) {
            if (b) {
                count++;
            }
        }
        int[] indices = new int[count];
        int next = 0;
        for (int i = 0; i < mask.length; i++) {
            if (mask[i]) {
                indices[next++] = i;
            }
        }
        return indices;
    }
}
