package dev.chorus.learning.train;

import java.io.Console;
import java.io.PrintStream;
import java.util.Locale;

/**
 * A one-line progress bar per epoch (epoch, share done, running loss, samples/s), redrawn in place
 * with a carriage return at most ten times a second, and left on its own line when the epoch ends.
 * Use {@link #forTerminal()}, which falls back to reporting nothing when the output is not a
 * terminal, so that logs never fill with carriage returns.
 */
public final class ProgressBar implements ProgressReporter {

    private static final long REDRAW_INTERVAL_NANOS = 100_000_000L;

    private final PrintStream out;
    private final int barWidth;
    private int epochs;
    private long lastDrawNanos;
    private boolean drawn;
    private int lastLength;

    /**
     * A bar drawn on {@code out} unconditionally.
     *
     * @param barWidth characters between the brackets, at least 1
     */
    public ProgressBar(PrintStream out, int barWidth) {
        if (barWidth < 1) {
            throw new IllegalArgumentException("progress bar width must be at least 1, got " + barWidth);
        }
        this.out = out;
        this.barWidth = barWidth;
    }

    /** A bar on standard output when it is an interactive terminal, else a quiet reporter. */
    public static ProgressReporter forTerminal() {
        Console console = System.console();
        if (console == null || !console.isTerminal()) {
            return ProgressReporter.quiet();
        }
        return new ProgressBar(System.out, 30);
    }

    @Override
    public void trainingStarted(int epochs, int rowsPerEpoch, int batchSize) {
        this.epochs = epochs;
        drawn = false;
    }

    @Override
    public void stepCompleted(
            int epoch, int samplesDone, int rowsPerEpoch, double meanLoss, long epochNanos, long nowNanos) {
        if (drawn && nowNanos - lastDrawNanos < REDRAW_INTERVAL_NANOS) {
            return;
        }
        drawn = true;
        lastDrawNanos = nowNanos;
        draw(line(epoch, samplesDone, rowsPerEpoch, meanLoss, rate(samplesDone, epochNanos / 1e9)), false);
    }

    @Override
    public void epochCompleted(EpochSummary s) {
        String text = line(s.epoch(), s.samples(), s.samples(), s.meanLoss(), s.samplesPerSecond())
                + String.format(Locale.ROOT, "  %.1fs", s.seconds());
        draw(text, true);
        drawn = false;
    }

    private String line(int epoch, int done, int total, double loss, double samplesPerSecond) {
        double share = total == 0 ? 1 : Math.min(1.0, (double) done / total);
        int filled = (int) Math.round(share * barWidth);
        return String.format(
                Locale.ROOT,
                "epoch %d/%d [%s%s] %3d%% loss %.4f  %.0f samples/s",
                epoch,
                epochs,
                "#".repeat(filled),
                "-".repeat(barWidth - filled),
                Math.round(share * 100),
                loss,
                samplesPerSecond);
    }

    private static double rate(int samples, double seconds) {
        return seconds > 0 ? samples / seconds : 0;
    }

    private void draw(String text, boolean endLine) {
        // Pad with blanks so that a shorter line hides the end of the longer one before it.
        String padded = text.length() < lastLength ? text + " ".repeat(lastLength - text.length()) : text;
        out.print("\r" + padded + (endLine ? System.lineSeparator() : ""));
        out.flush();
        lastLength = endLine ? 0 : text.length();
    }
}
