package dev.chorus.learning.data;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * How to turn the columns of a CSV file into features and a class label.
 *
 * <p>Label: with a {@code positiveClass}, rows whose label equals it are class 1 and all others
 * class 0. With {@code classValues}, label value {@code classValues[i]} is class {@code i} and any
 * other value is an error; this fixes the classes across nodes, so a node whose shard holds one
 * class only still loads. With neither, the distinct label values, sorted (numerically when all are
 * numbers), are classes 0, 1, ...; a label column with one value is then an error.
 *
 * <p>Features: {@code features} if given, else every column but the label and {@code drop}, in
 * file order. A column is one-hot encoded if it is listed in {@code categorical} or has {@code
 * levels}, numeric if listed in {@code numeric}; any other column is categorical if {@code
 * detectCategorical} and one of its non-missing values is not a number, else numeric. One-hot levels
 * are the {@code levels} given for the column (a value outside them is an error), else the sorted
 * distinct values of the loaded rows. Giving levels keeps the feature layout identical across nodes.
 *
 * <p>How labels become classes and how columns become features are nested records ({@link
 * Classes}, {@link Columns}), since a constructor takes at most 8 parameters
 * (ArchitectureCodeSizeTest); the flat accessors ({@link #features()}, ...) remain, and the schema
 * checks all parts against each other, in the order it always has.
 *
 * @param label the label column
 * @param classes how label values become classes
 * @param columns which columns are features and how they are encoded
 * @param missing what to do with missing feature values
 * @throws DataException if the parts contradict each other (a column both numeric and
 *     categorical, the label listed as a feature, ...)
 */
public record CsvSchema(String label, Classes classes, Columns columns, MissingValuePolicy missing) {

    /**
     * How label values become classes; {@link CsvSchema} checks them (not both given, class values distinct).
     *
     * @param positiveClass the label value of class 1 in a binary task, or {@code null}
     * @param classValues the label value of each class, or empty to take them from the data
     * @param part whether the data is one member's part of a consortium's data set: with a positive class, a part
     *     whose rows hold one class only (a shard of a skewed split) loads, every row of that class, where a whole
     *     data set would be refused (a positive class that never occurs is then most likely a typo)
     */
    public record Classes(String positiveClass, List<String> classValues, boolean part) {
        public Classes {
            classValues = List.copyOf(classValues);
        }

        public Classes(String positiveClass, List<String> classValues) {
            this(positiveClass, classValues, false);
        }
    }

    /**
     * Which columns are features and how they are encoded; {@link CsvSchema} checks them against
     * each other and the label.
     *
     * @param features the feature columns, or empty for all but the label and dropped columns
     * @param categorical columns to one-hot encode
     * @param numeric columns that must hold numbers (a non-number is an error)
     * @param drop columns to leave out
     * @param levels the one-hot levels of some categorical columns
     * @param detectCategorical whether a column with a non-numeric value is one-hot encoded
     */
    public record Columns(
            List<String> features,
            List<String> categorical,
            List<String> numeric,
            List<String> drop,
            Map<String, List<String>> levels,
            boolean detectCategorical) {
        public Columns {
            features = List.copyOf(features);
            categorical = List.copyOf(categorical);
            numeric = List.copyOf(numeric);
            drop = List.copyOf(drop);
            Map<String, List<String>> levelsCopy = new LinkedHashMap<>();
            levels.forEach((column, values) -> levelsCopy.put(column, List.copyOf(values)));
            levels = Collections.unmodifiableMap(levelsCopy);
        }
    }

    public CsvSchema {
        Objects.requireNonNull(label, "label");
        Objects.requireNonNull(missing, "missing");
        Objects.requireNonNull(classes, "classes");
        Objects.requireNonNull(columns, "columns");
        if (label.isBlank()) {
            throw new DataException("label column name is blank");
        }
        requireConsistentClasses(classes);
        requireConsistentColumns(label, columns);
    }

    private static void requireConsistentClasses(Classes classes) {
        List<String> classValues = classes.classValues();
        if (classes.positiveClass() != null && !classValues.isEmpty()) {
            throw new DataException("give either a positive class or the class values, not both");
        }
        if (!classValues.isEmpty()
                && (classValues.size() < 2 || new HashSet<>(classValues).size() != classValues.size())) {
            throw new DataException("class values must be at least 2 distinct values: " + classValues);
        }
    }

    private static void requireConsistentColumns(String label, Columns columns) {
        List<String> features = columns.features();
        List<String> categorical = columns.categorical();
        List<String> numeric = columns.numeric();
        List<String> drop = columns.drop();
        Map<String, List<String>> levels = columns.levels();
        for (var entry : Map.of("feature", features, "categorical", categorical, "numeric", numeric, "dropped", drop)
                .entrySet()) {
            if (entry.getValue().contains(label)) {
                throw new DataException("label column " + label + " is also listed as " + entry.getKey());
            }
        }
        for (var entry : Map.of("feature", features, "categorical", categorical, "numeric", numeric, "dropped", drop)
                .entrySet()) {
            if (new HashSet<>(entry.getValue()).size() != entry.getValue().size()) {
                throw new DataException("a column is listed twice as " + entry.getKey() + ": " + entry.getValue());
            }
        }
        if (levels.containsKey(label)) {
            throw new DataException("label column " + label + " is given one-hot levels");
        }
        for (String column : categorical) {
            if (numeric.contains(column)) {
                throw new DataException("column " + column + " is listed both as categorical and numeric");
            }
        }
        for (var entry : levels.entrySet()) {
            String column = entry.getKey();
            List<String> values = entry.getValue();
            if (numeric.contains(column)) {
                throw new DataException("numeric column " + column + " is given one-hot levels");
            }
            if (values.isEmpty() || new HashSet<>(values).size() != values.size()) {
                throw new DataException("levels of " + column + " must be distinct and not empty");
            }
        }
        for (String column : features) {
            if (drop.contains(column)) {
                throw new DataException("column " + column + " is listed both as feature and dropped");
            }
        }
    }

    /** The label value of class 1 in a binary task, or {@code null}. */
    /** Whether the data is one member's part of a larger data set ({@link Classes#part()}). */
    public boolean part() {
        return classes.part();
    }

    public String positiveClass() {
        return classes.positiveClass();
    }

    /** The label value of each class, or empty to take them from the data. */
    public List<String> classValues() {
        return classes.classValues();
    }

    /** The feature columns, or empty for all but the label and dropped columns. */
    public List<String> features() {
        return columns.features();
    }

    /** Columns to one-hot encode. */
    public List<String> categorical() {
        return columns.categorical();
    }

    /** Columns that must hold numbers. */
    public List<String> numeric() {
        return columns.numeric();
    }

    /** Columns to leave out. */
    public List<String> drop() {
        return columns.drop();
    }

    /** The one-hot levels of some categorical columns. */
    public Map<String, List<String>> levels() {
        return columns.levels();
    }

    /** Whether a column with a non-numeric value is one-hot encoded. */
    public boolean detectCategorical() {
        return columns.detectCategorical();
    }

    /** A schema builder for label column {@code label}. */
    public static Builder builder(String label) {
        return new Builder(label);
    }

    /** Whether {@code column} is to be one-hot encoded whatever its values. */
    boolean declaredCategorical(String column) {
        return categorical().contains(column) || levels().containsKey(column);
    }

    /** Builds a {@link CsvSchema}; defaults: all columns features, detect categorical, drop rows with missing values. */
    public static final class Builder {
        private final String label;
        private String positiveClass;
        private boolean part;
        private final List<String> classValues = new ArrayList<>();
        private final List<String> features = new ArrayList<>();
        private final List<String> categorical = new ArrayList<>();
        private final List<String> numeric = new ArrayList<>();
        private final List<String> drop = new ArrayList<>();
        private final Map<String, List<String>> levels = new LinkedHashMap<>();
        private boolean detectCategorical = true;
        private MissingValuePolicy missing = MissingValuePolicy.DROP_ROW;

        private Builder(String label) {
            this.label = label;
        }

        public Builder positiveClass(String value) {
            this.positiveClass = value;
            return this;
        }

        /** The data is one member's part of a larger data set ({@link Classes#part()}). */
        public Builder part(boolean value) {
            this.part = value;
            return this;
        }

        public Builder classValues(List<String> values) {
            classValues.addAll(values);
            return this;
        }

        public Builder features(List<String> columns) {
            features.addAll(columns);
            return this;
        }

        public Builder categorical(List<String> columns) {
            categorical.addAll(columns);
            return this;
        }

        public Builder numeric(List<String> columns) {
            numeric.addAll(columns);
            return this;
        }

        public Builder drop(List<String> columns) {
            drop.addAll(columns);
            return this;
        }

        public Builder drop(String... columns) {
            return drop(List.of(columns));
        }

        public Builder levels(String column, List<String> values) {
            levels.put(column, values);
            return this;
        }

        public Builder detectCategorical(boolean detect) {
            this.detectCategorical = detect;
            return this;
        }

        public Builder missing(MissingValuePolicy policy) {
            this.missing = policy;
            return this;
        }

        /** The schema; throws {@link DataException} if its parts contradict each other. */
        public CsvSchema build() {
            return new CsvSchema(
                    label,
                    new Classes(positiveClass, classValues, part),
                    new Columns(features, categorical, numeric, drop, levels, detectCategorical),
                    missing);
        }
    }
}
