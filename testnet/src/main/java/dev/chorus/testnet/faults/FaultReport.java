package dev.chorus.testnet.faults;

import dev.chorus.learning.data.AtomicFile;
import dev.chorus.learning.json.JsonWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The outcome of one scenario: a table of what happened (one row per fault, e.g. per kill), the figures the
 * invariant was judged on, and the verdict with its reason. Printed as the table, the figures and one last line
 * {@code faults: SCENARIO passed|failed: REASON}; written as JSON with the same content. The soak reports in the same
 * form, its last line {@code soak: passed|failed: REASON}.
 */
public final class FaultReport {

    private final String verdictPrefix;
    private final String scenario;
    private final List<String> columns;
    private final List<List<String>> rows = new ArrayList<>();
    private final Map<String, Object> figures = new LinkedHashMap<>();
    private final List<String> notes = new ArrayList<>();
    private final List<String> failures = new ArrayList<>();
    private String passReason = "";

    FaultReport(String scenario, List<String> columns) {
        this("faults: " + scenario, scenario, columns);
    }

    /**
     * A report whose last line starts with {@code verdictPrefix} ({@code soak:}), then passed or failed.
     *
     * @param scenario its name in the JSON
     */
    public FaultReport(String verdictPrefix, String scenario, List<String> columns) {
        this.verdictPrefix = verdictPrefix;
        this.scenario = scenario;
        this.columns = List.copyOf(columns);
    }

    public void row(Object... cells) {
        if (cells.length != columns.size()) {
            throw new IllegalArgumentException(cells.length + " cells for " + columns.size() + " columns");
        }
        List<String> r = new ArrayList<>();
        for (Object c : cells) {
            r.add(c instanceof Double d ? String.format(Locale.ROOT, "%.3f", d) : String.valueOf(c));
        }
        rows.add(r);
    }

    /** A figure of the run, e.g. the mean accuracy before the faults: a {@link Number}, {@link String} or boolean. */
    public void figure(String name, Object value) {
        figures.put(name, value);
    }

    /** Something the reader should know that is neither a figure nor a failure, e.g. a fault that was left out. */
    public void note(String text) {
        notes.add(text);
    }

    /** A broken invariant; the first one becomes the verdict's reason. */
    public void fail(String reason) {
        failures.add(reason);
    }

    /** The reason given when nothing failed. */
    public void passBecause(String reason) {
        passReason = reason;
    }

    public String scenario() {
        return scenario;
    }

    public boolean passed() {
        return failures.isEmpty();
    }

    public List<String> failures() {
        return List.copyOf(failures);
    }

    public Map<String, Object> figures() {
        return Map.copyOf(figures);
    }

    public int rows() {
        return rows.size();
    }

    /** The last line of the printed report. */
    public String verdict() {
        return verdictPrefix + " " + (passed() ? "passed: " + passReason : "failed: " + failures.getFirst());
    }

    public void print(PrintWriter out) {
        int[] width = new int[columns.size()];
        for (int c = 0; c < width.length; c++) {
            width[c] = columns.get(c).length();
            for (List<String> r : rows) {
                width[c] = Math.max(width[c], r.get(c).length());
            }
        }
        printRow(out, columns, width);
        for (List<String> r : rows) {
            printRow(out, r, width);
        }
        for (Map.Entry<String, Object> f : figures.entrySet()) {
            Object v = f.getValue();
            out.println(f.getKey() + ": "
                    + (v instanceof Double d ? String.format(Locale.ROOT, "%.4f", d) : String.valueOf(v)));
        }
        notes.forEach(n -> out.println("note: " + n));
        for (int i = 1; i < failures.size(); i++) {
            out.println("also failed: " + failures.get(i));
        }
        out.println(verdict());
        out.flush();
    }

    private static void printRow(PrintWriter out, List<String> cells, int[] width) {
        StringBuilder sb = new StringBuilder();
        for (int c = 0; c < cells.size(); c++) {
            sb.append(c == 0 ? "" : "  ");
            sb.append(String.format(Locale.ROOT, "%-" + width[c] + "s", cells.get(c)));
        }
        out.println(sb.toString().stripTrailing());
    }

    public void write(Path file) throws IOException {
        StringBuilder sb = new StringBuilder();
        JsonWriter w = JsonWriter.pretty(sb);
        w.beginObject();
        w.member("scenario", scenario);
        w.member("passed", passed());
        w.member("verdict", verdict());
        w.name("failures").beginArray();
        failures.forEach(w::value);
        w.endArray();
        w.name("figures").beginObject();
        for (Map.Entry<String, Object> f : figures.entrySet()) {
            w.name(f.getKey());
            switch (f.getValue()) {
                case Long l -> w.value(l);
                case Integer i -> w.value(i);
                case Number n -> w.value(n.doubleValue());
                case Boolean b -> w.value(b);
                default -> w.value(String.valueOf(f.getValue()));
            }
        }
        w.endObject();
        w.name("notes").beginArray();
        notes.forEach(w::value);
        w.endArray();
        w.name("columns").beginArray();
        columns.forEach(w::value);
        w.endArray();
        w.name("rows").beginArray();
        for (List<String> r : rows) {
            w.beginArray();
            r.forEach(w::value);
            w.endArray();
        }
        w.endArray();
        w.endObject();
        w.finish();
        sb.append('\n');
        AtomicFile.writeString(file, sb.toString());
    }
}
