package dev.chorus.learning.data;

/**
 * What a loader does with a row that has a missing value ({@code NA} or an empty field) in a
 * feature column. A missing label is never imputed: such rows are always dropped.
 */
public enum MissingValuePolicy {
    /** Leave the row out. */
    DROP_ROW,
    /**
     * Fill the value in from the loaded rows of this node only (never from other nodes' data): the
     * median of a numeric column, the most frequent value of a categorical one.
     */
    IMPUTE
}
