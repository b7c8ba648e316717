package dev.chorus.cli.bench;

import dev.chorus.learning.data.AtomicFile;
import dev.chorus.learning.json.JsonWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * How the {@code bench} commands print and write a list of {@link Measurement}s: a table of medians and runs, one
 * CSV row per figure ({@code name,unit,median,runs,note}, runs separated by {@code ;}), or one JSON object whose
 * {@code results} array holds the figures after the benchmark's own header members.
 */
public final class MeasurementReport {
    private MeasurementReport() {}

    /** The one-minute load average of the machine (negative where the OS does not report it). */
    public static double loadAverage() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    /** One row per figure: name, median, unit and, when there are several, every run. */
    public static void printRows(PrintWriter w, List<Measurement> results, int nameWidth) {
        String row = "%-" + nameWidth + "s %12s  %-9s %s%n";
        w.printf(Locale.ROOT, row, "what", "median", "unit", "runs");
        for (Measurement m : results) {
            if (!m.present()) {
                w.printf(Locale.ROOT, row, m.name(), "-", m.unit(), "skipped: " + m.note());
                continue;
            }
            StringBuilder all = new StringBuilder();
            if (m.runs().size() > 1) {
                for (double v : m.runs()) {
                    all.append(all.isEmpty() ? "" : " ").append(format(v));
                }
            }
            w.printf(Locale.ROOT, row, m.name(), format(m.median()), m.unit(), all);
        }
    }

    /** Three significant-ish digits: no decimals from 100 up, two below. */
    public static String format(double v) {
        return Math.abs(v) >= 100 ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.2f", v);
    }

    /** The results as one JSON object: {@code bench}, the header's members, then {@code results}. */
    public static String json(String bench, Consumer<JsonWriter> header, List<Measurement> results) {
        StringBuilder sb = new StringBuilder();
        JsonWriter w = JsonWriter.compact(sb);
        w.beginObject();
        w.member("bench", bench);
        header.accept(w);
        w.name("results").beginArray();
        for (Measurement m : results) {
            w.beginObject();
            w.member("name", m.name());
            w.member("unit", m.unit());
            if (m.present()) {
                w.member("median", m.median());
            } else {
                w.name("median").nullValue();
            }
            w.name("runs").beginArray();
            for (double v : m.runs()) {
                w.value(v);
            }
            w.endArray();
            w.member("note", m.note());
            w.endObject();
        }
        w.endArray();
        w.endObject();
        w.finish();
        return sb.toString();
    }

    /** The results as CSV with a header row. */
    public static String csv(List<Measurement> results) {
        StringBuilder sb = new StringBuilder("name,unit,median,runs,note\n");
        for (Measurement m : results) {
            StringBuilder all = new StringBuilder();
            for (double v : m.runs()) {
                all.append(all.isEmpty() ? "" : ";").append(v);
            }
            sb.append(csvField(m.name()))
                    .append(',')
                    .append(csvField(m.unit()))
                    .append(',')
                    .append(m.present() ? Double.toString(m.median()) : "")
                    .append(',')
                    .append(all)
                    .append(',')
                    .append(csvField(m.note()))
                    .append('\n');
        }
        return sb.toString();
    }

    private static String csvField(String s) {
        return s.contains(",") || s.contains("\"") ? '"' + s.replace("\"", "\"\"") + '"' : s;
    }

    /**
     * Writes {@code csv} to each file whose name ends in {@code .csv} and {@code json} (plus a newline) to every
     * other, each atomically.
     */
    public static void write(List<Path> files, String csv, String json) throws IOException {
        for (Path file : files) {
            String text = file.toString().endsWith(".csv") ? csv : json + "\n";
            Path target = file.toAbsolutePath();
            if (target.getParent() != null) {
                java.nio.file.Files.createDirectories(target.getParent());
            }
            AtomicFile.write(target, o -> o.write(text.getBytes(StandardCharsets.UTF_8)));
        }
    }
}
