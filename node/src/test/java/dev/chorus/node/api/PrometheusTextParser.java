package dev.chorus.node.api;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A strict parser of the Prometheus text exposition format 0.0.4 (prometheus/docs,
 * "Exposition formats"), for tests: no Java parser of the format is published by the Prometheus
 * client, so this one checks the grammar and the rules the spec states. It rejects: a metric or
 * label name outside its character set, a bad escape in a label value, a duplicate label, a value
 * Go's ParseFloat would not read, a TYPE after the family's first sample or given twice, an
 * unknown type, a family whose samples are not contiguous, a duplicate sample, and a histogram
 * without a {@code +Inf} bucket, with decreasing buckets, or whose {@code _count} differs from the
 * {@code +Inf} bucket.
 */
final class PrometheusTextParser {

    record Sample(String name, Map<String, String> labels, double value) {}

    record Family(String name, String type, String help, List<Sample> samples) {}

    private static final Pattern METRIC = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
    private static final Pattern LABEL = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");
    private static final Pattern FLOAT = Pattern.compile("[+-]?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?|[+-]?Inf|NaN");
    private static final Set<String> TYPES = Set.of("counter", "gauge", "histogram", "summary", "untyped");

    private final Map<String, Family> families = new LinkedHashMap<>();
    private final Set<String> closed = new HashSet<>();
    private final Set<String> seenSamples = new HashSet<>();
    private String current;
    private int lineNo;

    static Map<String, Family> parse(String text) {
        PrometheusTextParser p = new PrometheusTextParser();
        if (!text.isEmpty() && !text.endsWith("\n")) {
            throw new IllegalArgumentException("the exposition must end with a line feed");
        }
        for (String line : text.split("\n", -1)) {
            p.lineNo++;
            p.line(line);
        }
        p.families.values().forEach(PrometheusTextParser::checkHistogram);
        return p.families;
    }

    private void line(String line) {
        if (line.isBlank()) {
            return;
        }
        if (line.startsWith("#")) {
            String[] parts = line.split(" ", 4);
            if (parts.length >= 3 && (parts[1].equals("HELP") || parts[1].equals("TYPE"))) {
                String name = parts[2];
                requireName(name);
                Family f = family(name);
                if (parts[1].equals("TYPE")) {
                    String type = parts.length == 4 ? parts[3] : "";
                    if (!TYPES.contains(type)) {
                        fail("unknown type '" + type + "'");
                    }
                    if (f.type() != null) {
                        fail("second TYPE line for " + name);
                    }
                    if (!f.samples().isEmpty()) {
                        fail("TYPE for " + name + " after its samples");
                    }
                    families.put(name, new Family(name, type, f.help(), f.samples()));
                } else {
                    if (f.help() != null) {
                        fail("second HELP line for " + name);
                    }
                    families.put(name, new Family(name, f.type(), parts.length == 4 ? parts[3] : "", f.samples()));
                }
            }
            return;
        }
        sample(line);
    }

    private Family family(String name) {
        if (!name.equals(current)) {
            if (closed.contains(name)) {
                fail("samples of " + name + " are not contiguous");
            }
            if (current != null) {
                closed.add(current);
            }
            current = name;
        }
        return families.computeIfAbsent(name, n -> new Family(n, null, null, new ArrayList<>()));
    }

    private void sample(String line) {
        int i = 0;
        while (i < line.length() && line.charAt(i) != '{' && line.charAt(i) != ' ') {
            i++;
        }
        String name = line.substring(0, i);
        requireName(name);
        Map<String, String> labels = new LinkedHashMap<>();
        if (i < line.length() && line.charAt(i) == '{') {
            i++;
            while (true) {
                if (i >= line.length()) {
                    fail("unterminated label set");
                }
                if (line.charAt(i) == '}') {
                    i++;
                    break;
                }
                int eq = line.indexOf('=', i);
                if (eq < 0) {
                    fail("label without '='");
                }
                String label = line.substring(i, eq);
                if (!LABEL.matcher(label).matches() || label.startsWith("__")) {
                    fail("bad label name '" + label + "'");
                }
                if (eq + 1 >= line.length() || line.charAt(eq + 1) != '"') {
                    fail("label value must be quoted");
                }
                StringBuilder value = new StringBuilder();
                int j = eq + 2;
                while (true) {
                    if (j >= line.length()) {
                        fail("unterminated label value");
                    }
                    char c = line.charAt(j);
                    if (c == '"') {
                        break;
                    }
                    if (c == '\\') {
                        char n = j + 1 < line.length() ? line.charAt(j + 1) : 0;
                        switch (n) {
                            case '\\' -> value.append('\\');
                            case '"' -> value.append('"');
                            case 'n' -> value.append('\n');
                            default -> fail("bad escape in label value");
                        }
                        j += 2;
                    } else {
                        value.append(c);
                        j++;
                    }
                }
                if (labels.put(label, value.toString()) != null) {
                    fail("duplicate label " + label);
                }
                i = j + 1;
                if (i < line.length() && line.charAt(i) == ',') {
                    i++;
                }
            }
        }
        if (i >= line.length() || line.charAt(i) != ' ') {
            fail("expected a space before the value");
        }
        String[] rest = line.substring(i + 1).split(" ", -1);
        if (rest.length < 1 || rest.length > 2) {
            fail("expected a value and an optional timestamp");
        }
        if (!FLOAT.matcher(rest[0]).matches()) {
            fail("bad value '" + rest[0] + "'");
        }
        if (rest.length == 2 && !rest[1].matches("-?\\d+")) {
            fail("bad timestamp '" + rest[1] + "'");
        }
        double value = rest[0].endsWith("Inf")
                ? (rest[0].startsWith("-") ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY)
                : Double.parseDouble(rest[0]);
        String familyName = familyOf(name);
        if (!seenSamples.add(name + labels)) {
            fail("duplicate sample " + name + labels);
        }
        family(familyName).samples().add(new Sample(name, labels, value));
    }

    /** A histogram's _bucket, _sum and _count samples belong to the family without the suffix. */
    private String familyOf(String name) {
        for (String suffix : new String[] {"_bucket", "_sum", "_count"}) {
            if (name.endsWith(suffix)) {
                String base = name.substring(0, name.length() - suffix.length());
                Family f = families.get(base);
                if (f != null && ("histogram".equals(f.type()) || "summary".equals(f.type()))) {
                    return base;
                }
            }
        }
        return name;
    }

    private static void checkHistogram(Family f) {
        if (!"histogram".equals(f.type())) {
            return;
        }
        double last = -1;
        double prevLe = Double.NEGATIVE_INFINITY;
        Double inf = null, count = null;
        for (Sample s : f.samples()) {
            if (s.name().equals(f.name() + "_bucket")) {
                String le = s.labels().get("le");
                if (le == null) {
                    throw new IllegalArgumentException(f.name() + ": bucket without le");
                }
                double bound = le.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(le);
                if (bound <= prevLe) {
                    throw new IllegalArgumentException(f.name() + ": buckets not in increasing le order");
                }
                if (s.value() < last) {
                    throw new IllegalArgumentException(f.name() + ": bucket counts decrease at le=" + le);
                }
                prevLe = bound;
                last = s.value();
                if (bound == Double.POSITIVE_INFINITY) {
                    inf = s.value();
                }
            } else if (s.name().equals(f.name() + "_count")) {
                count = s.value();
            } else if (!s.name().equals(f.name() + "_sum")) {
                throw new IllegalArgumentException(f.name() + ": unexpected sample " + s.name());
            }
        }
        if (inf == null) {
            throw new IllegalArgumentException(f.name() + ": no +Inf bucket");
        }
        if (count == null || !count.equals(inf)) {
            throw new IllegalArgumentException(f.name() + ": _count differs from the +Inf bucket");
        }
    }

    private void requireName(String name) {
        if (!METRIC.matcher(name).matches()) {
            fail("bad metric name '" + name + "'");
        }
    }

    private void fail(String problem) {
        throw new IllegalArgumentException("line " + lineNo + ": " + problem);
    }
}
