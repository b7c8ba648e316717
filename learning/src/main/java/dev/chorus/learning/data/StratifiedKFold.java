package dev.chorus.learning.data;

import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A seeded stratified k-fold assignment: every row is in exactly one fold, and each class is
 * spread over the folds as evenly as possible (its fold counts differ by at most one), as in
 * Kohavi (1995), "A study of cross-validation and bootstrap for accuracy estimation and model
 * selection". Rows of each class are shuffled, and classes are dealt to folds in turn, one dealing
 * continuing where the previous class stopped so that fold sizes also differ by at most one.
 *
 * <p>The assignment ({@link #foldOfRow()}) can be written as CSV so that another tool (such as
 * scikit-learn's {@code PredefinedSplit}) evaluates on exactly the same folds.
 */
public final class StratifiedKFold {

    private final int k;
    private final int[] foldOfRow;

    private StratifiedKFold(int k, int[] foldOfRow) {
        this.k = k;
        this.foldOfRow = foldOfRow;
    }

    /** Assigns each of {@code labels.length} rows to one of {@code k} folds. */
    public static StratifiedKFold split(int[] labels, int classes, int k, long seed) {
        if (k < 2 || k > labels.length) {
            throw new DataException("k-fold needs 2 <= k <= rows (" + labels.length + "), got k = " + k);
        }
        int[] fold = new int[labels.length];
        int next = 0;
        for (int[] members : shuffledByClass(labels, classes, new SplittableRandom(seed))) {
            for (int row : members) {
                fold[row] = next;
                next = (next + 1) % k;
            }
        }
        return new StratifiedKFold(k, fold);
    }

    /** The assignment read back from {@link #foldOfRow()}. */
    public static StratifiedKFold of(int k, int[] foldOfRow) {
        for (int f : foldOfRow) {
            if (f < 0 || f >= k) {
                throw new IllegalArgumentException("fold " + f + " outside [0, " + k + ")");
            }
        }
        return new StratifiedKFold(k, foldOfRow.clone());
    }

    public int k() {
        return k;
    }

    /** The fold of each row (a copy). */
    public int[] foldOfRow() {
        return foldOfRow.clone();
    }

    /** Rows of fold {@code fold}, ascending. */
    public int[] test(int fold) {
        return rows(fold, true);
    }

    /** Rows of every fold but {@code fold}, ascending. */
    public int[] train(int fold) {
        return rows(fold, false);
    }

    /** Writes {@code row,fold} lines (rows of the loaded data set, from 0) to {@code file}, atomically. */
    public void writeCsv(Path file) throws IOException {
        AtomicFile.write(file, out -> {
            Writer writer = new OutputStreamWriter(out, StandardCharsets.UTF_8);
            writer.write("row,fold\n");
            for (int row = 0; row < foldOfRow.length; row++) {
                writer.write(row + "," + foldOfRow[row] + "\n");
            }
            writer.flush();
        });
    }

    private int[] rows(int fold, boolean inFold) {
        if (fold < 0 || fold >= k) {
            throw new IllegalArgumentException("fold " + fold + " outside [0, " + k + ")");
        }
        int count = 0;
        for (int f : foldOfRow) {
            if ((f == fold) == inFold) {
                count++;
            }
        }
        int[] rows = new int[count];
        int next = 0;
        for (int row = 0; row < foldOfRow.length; row++) {
            if ((foldOfRow[row] == fold) == inFold) {
                rows[next++] = row;
            }
        }
        return rows;
    }

    /** Row indices of each class, each list shuffled (Fisher-Yates) with {@code random}. */
    static List<int[]> shuffledByClass(int[] labels, int classes, SplittableRandom random) {
        int[] counts = new int[classes];
        for (int label : labels) {
            if (label < 0 || label >= classes) {
                throw new IllegalArgumentException("label " + label + " outside [0, " + classes + ")");
            }
            counts[label]++;
        }
        List<int[]> byClass = new ArrayList<>(classes);
        for (int k = 0; k < classes; k++) {
            byClass.add(new int[counts[k]]);
        }
        int[] filled = new int[classes];
        for (int row = 0; row < labels.length; row++) {
            byClass.get(labels[row])[filled[labels[row]]++] = row;
        }
        for (int[] members : byClass) {
            shuffle(members, random);
        }
        return byClass;
    }

    /** Fisher-Yates shuffle in place. */
    static void shuffle(int[] a, SplittableRandom random) {
        for (int i = a.length - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }
}
