package dev.chorus.learning.data;

import java.util.List;
import java.util.Objects;

/**
 * A labelled data set held in memory: {@code rows x cols} features, row-major in one {@code
 * float[]}, and one class index in {@code [0, classes)} per row. Binary tasks have two classes,
 * the positive class being index 1.
 *
 * <p>The arrays are shared, not copied: treat a data set as immutable once built.
 */
public record Dataset(
        float[] features,
        int rows,
        int cols,
        int[] labels,
        int classes,
        List<String> featureNames,
        List<String> classNames) {

    public Dataset {
        Objects.requireNonNull(features, "features");
        Objects.requireNonNull(labels, "labels");
        featureNames = List.copyOf(featureNames);
        classNames = List.copyOf(classNames);
        if (rows < 0 || cols <= 0 || (long) rows * cols != features.length) {
            throw new IllegalArgumentException(
                    "features hold " + features.length + " values, expected " + rows + " x " + cols);
        }
        if (labels.length != rows) {
            throw new IllegalArgumentException(labels.length + " labels for " + rows + " rows");
        }
        if (classes < 2 || classNames.size() != classes) {
            throw new IllegalArgumentException("need at least 2 classes, with one name each");
        }
        if (featureNames.size() != cols) {
            throw new IllegalArgumentException(featureNames.size() + " feature names for " + cols + " columns");
        }
        for (int i = 0; i < rows; i++) {
            if (labels[i] < 0 || labels[i] >= classes) {
                throw new IllegalArgumentException(
                        "label " + labels[i] + " of row " + i + " outside [0, " + classes + ")");
            }
        }
    }

    /** Whether this is a two-class task (scored with ROC AUC as well as accuracy). */
    public boolean binary() {
        return classes == 2;
    }

    /** Rows per class. */
    public int[] labelCounts() {
        int[] counts = new int[classes];
        for (int label : labels) {
            counts[label]++;
        }
        return counts;
    }

    /** A new data set with the given rows, in the given order (copies the selected rows). */
    public Dataset subset(int[] indices) {
        float[] f = new float[indices.length * cols];
        int[] l = new int[indices.length];
        for (int i = 0; i < indices.length; i++) {
            System.arraycopy(features, indices[i] * cols, f, i * cols, cols);
            l[i] = labels[indices[i]];
        }
        return new Dataset(f, indices.length, cols, l, classes, featureNames, classNames);
    }
}
