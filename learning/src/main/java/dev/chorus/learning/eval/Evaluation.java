package dev.chorus.learning.eval;

import dev.chorus.learning.json.JsonWriter;
import java.util.Objects;

/**
 * The scores of one model on one labelled set.
 *
 * @param rows rows scored
 * @param accuracy fraction predicted correctly, the prediction being the most probable class (the
 *     lowest such class on a tie)
 * @param auc ROC AUC of the class-1 probability for a binary task; NaN for more classes or when
 *     the labels hold one class only
 * @param logLoss mean cross-entropy, see {@link LogLoss}
 * @param confusion the confusion matrix of the predictions
 */
public record Evaluation(int rows, double accuracy, double auc, double logLoss, ConfusionMatrix confusion) {

    public Evaluation {
        Objects.requireNonNull(confusion, "confusion");
    }

    /** Scores row-major {@code probabilities} ({@code labels.length x classes}) against {@code labels}. */
    public static Evaluation of(int[] labels, float[] probabilities, int classes) {
        if ((long) labels.length * classes != probabilities.length) {
            throw new IllegalArgumentException(
                    probabilities.length + " probabilities for " + labels.length + " rows of " + classes + " classes");
        }
        int[] predictions = new int[labels.length];
        for (int i = 0; i < labels.length; i++) {
            int best = 0;
            for (int k = 1; k < classes; k++) {
                if (probabilities[i * classes + k] > probabilities[i * classes + best]) {
                    best = k;
                }
            }
            predictions[i] = best;
        }
        ConfusionMatrix confusion = ConfusionMatrix.of(labels, predictions, classes);
        double auc = Double.NaN;
        if (classes == 2) {
            double[] scores = new double[labels.length];
            for (int i = 0; i < labels.length; i++) {
                scores[i] = probabilities[i * 2 + 1];
            }
            auc = RocAuc.of(labels, scores);
        }
        return new Evaluation(
                labels.length, confusion.accuracy(), auc, LogLoss.of(labels, probabilities, classes), confusion);
    }

    /** Writes this evaluation as a JSON object; undefined scores (NaN) are written as {@code null}. */
    public void writeJson(JsonWriter w) {
        w.beginObject();
        w.member("rows", rows);
        w.member("accuracy", accuracy);
        w.member("auc", auc);
        w.member("logLoss", logLoss);
        w.name("confusion").beginArray();
        for (long[] row : confusion.toArray()) {
            w.beginArray();
            for (long count : row) {
                w.value(count);
            }
            w.endArray();
        }
        w.endArray();
        w.endObject();
    }
}
