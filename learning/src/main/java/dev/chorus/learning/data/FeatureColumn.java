package dev.chorus.learning.data;

import java.util.List;

/** How one CSV column became features: a numeric feature, or a one-hot block. */
public sealed interface FeatureColumn {

    /** The CSV column name. */
    String name();

    /** Rows of the loaded data whose value was missing (before dropping or imputing). */
    int missing();

    /** Number of features this column produces. */
    int width();

    /**
     * A numeric column.
     *
     * @param imputed the median used for missing values, or NaN when none was imputed
     */
    record Numeric(String name, int missing, double imputed) implements FeatureColumn {
        @Override
        public int width() {
            return 1;
        }
    }

    /**
     * A one-hot encoded column: feature {@code name=level} is 1 for rows holding {@code level}.
     *
     * @param imputed the most frequent level used for missing values, or {@code null}
     */
    record Categorical(String name, int missing, List<String> levels, String imputed) implements FeatureColumn {
        public Categorical {
            levels = List.copyOf(levels);
        }

        @Override
        public int width() {
            return levels.size();
        }
    }
}
