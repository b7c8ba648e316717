package dev.chorus.node.api;

/**
 * One evaluation on the validation split, as {@code /api/history} lists them.
 *
 * @param timeMillis when (ms since the epoch)
 * @param version the model version evaluated
 * @param steps local steps taken so far
 * @param trainLoss the moving average of the training loss at that time
 * @param accuracy validation accuracy
 * @param loss validation log loss
 * @param auc validation ROC AUC (binary tasks), else NaN
 */
public record HistoryPoint(
        long timeMillis, long version, long steps, double trainLoss, double accuracy, double loss, double auc) {}
