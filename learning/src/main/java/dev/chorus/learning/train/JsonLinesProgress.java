package dev.chorus.learning.train;

import java.io.PrintStream;

/**
 * One JSON object per line and epoch, for scripts and experiment drivers:
 *
 * <pre>
 * {"epoch":1,"epochs":10,"steps":32,"samples":1000,"loss":0.6931,"seconds":0.52,"samples_per_second":1923.1}
 * </pre>
 *
 * A non-finite loss is written as {@code null}, since JSON has no NaN.
 */
public final class JsonLinesProgress implements ProgressReporter {

    private final PrintStream out;

    public JsonLinesProgress(PrintStream out) {
        if (out == null) {
            throw new IllegalArgumentException("JSON lines progress needs an output stream");
        }
        this.out = out;
    }

    @Override
    public void epochCompleted(EpochSummary s) {
        out.println("{\"epoch\":" + s.epoch() + ",\"epochs\":" + s.epochs() + ",\"steps\":" + s.steps()
                + ",\"samples\":" + s.samples() + ",\"loss\":" + number(s.meanLoss()) + ",\"seconds\":"
                + number(s.seconds()) + ",\"samples_per_second\":" + number(s.samplesPerSecond()) + "}");
        out.flush();
    }

    /** A JSON number ({@link Double#toString} output is valid JSON when finite), or null. */
    static String number(double value) {
        return Double.isFinite(value) ? Double.toString(value) : "null";
    }
}
