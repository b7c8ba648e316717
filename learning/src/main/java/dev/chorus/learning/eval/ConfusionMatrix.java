package dev.chorus.learning.eval;

import java.util.Arrays;

/**
 * Counts of (true class, predicted class) pairs. Row {@code actual}, column {@code predicted}, as
 * scikit-learn's {@code confusion_matrix}.
 */
public final class ConfusionMatrix {

    private final int classes;
    private final long[] counts;

    private ConfusionMatrix(int classes, long[] counts) {
        this.classes = classes;
        this.counts = counts;
    }

    /** The matrix of {@code predictions} against {@code labels}, both in {@code [0, classes)}. */
    public static ConfusionMatrix of(int[] labels, int[] predictions, int classes) {
        if (labels.length != predictions.length) {
            throw new IllegalArgumentException(labels.length + " labels but " + predictions.length + " predictions");
        }
        if (classes < 1) {
            throw new IllegalArgumentException("classes must be positive, got " + classes);
        }
        long[] counts = new long[classes * classes];
        for (int i = 0; i < labels.length; i++) {
            checkClass(labels[i], classes, "label", i);
            checkClass(predictions[i], classes, "prediction", i);
            counts[labels[i] * classes + predictions[i]]++;
        }
        return new ConfusionMatrix(classes, counts);
    }

    static void checkClass(int value, int classes, String what, int row) {
        if (value < 0 || value >= classes) {
            throw new IllegalArgumentException(what + " " + value + " of row " + row + " outside [0, " + classes + ")");
        }
    }

    public int classes() {
        return classes;
    }

    /** Rows of class {@code actual} predicted as {@code predicted}. */
    public long count(int actual, int predicted) {
        return counts[actual * classes + predicted];
    }

    public long total() {
        return Arrays.stream(counts).sum();
    }

    /** The diagonal: rows predicted as their own class. */
    public long correct() {
        long correct = 0;
        for (int k = 0; k < classes; k++) {
            correct += count(k, k);
        }
        return correct;
    }

    /** Fraction of rows predicted correctly; NaN for an empty matrix. */
    public double accuracy() {
        long total = total();
        return total == 0 ? Double.NaN : (double) correct() / total;
    }

    /**
     * Balanced accuracy: the mean over classes of each class's recall, counting only the classes that occur among
     * the labels (as scikit-learn's {@code balanced_accuracy_score}); NaN for an empty matrix. Unlike {@link
     * #accuracy()}, a model that always predicts a majority class scores 1/classes on it, whatever the class shares.
     */
    public double balancedAccuracy() {
        double sum = 0;
        int present = 0;
        for (int k = 0; k < classes; k++) {
            double recall = recall(k);
            if (!Double.isNaN(recall)) {
                sum += recall;
                present++;
            }
        }
        return present == 0 ? Double.NaN : sum / present;
    }

    /** Recall (sensitivity) of class {@code k}: correct among rows of class k; NaN if there are none. */
    public double recall(int k) {
        long row = 0;
        for (int p = 0; p < classes; p++) {
            row += count(k, p);
        }
        return row == 0 ? Double.NaN : (double) count(k, k) / row;
    }

    /** Precision of class {@code k}: correct among rows predicted as k; NaN if there are none. */
    public double precision(int k) {
        long column = 0;
        for (int a = 0; a < classes; a++) {
            column += count(a, k);
        }
        return column == 0 ? Double.NaN : (double) count(k, k) / column;
    }

    /** The counts as {@code [actual][predicted]} (a copy). */
    public long[][] toArray() {
        long[][] out = new long[classes][];
        for (int a = 0; a < classes; a++) {
            out[a] = Arrays.copyOfRange(counts, a * classes, (a + 1) * classes);
        }
        return out;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConfusionMatrix m && m.classes == classes && Arrays.equals(m.counts, counts);
    }

    @Override
    public int hashCode() {
        return 31 * classes + Arrays.hashCode(counts);
    }

    @Override
    public String toString() {
        return "ConfusionMatrix" + Arrays.deepToString(toArray());
    }
}
