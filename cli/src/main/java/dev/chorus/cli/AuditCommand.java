package dev.chorus.cli;

import dev.chorus.learning.json.JsonWriter;
import dev.chorus.node.setup.UserError;
import dev.chorus.privacy.audit.AuditLogException;
import dev.chorus.privacy.audit.AuditVerification;
import dev.chorus.privacy.audit.EgressAuditLog;
import dev.chorus.privacy.audit.EgressRecord;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code chorus audit}: checks and sums up a node's egress audit log ({@code DATA_DIR/audit/}). */
@Command(
        name = "audit",
        mixinStandardHelpOptions = true,
        description = "The egress audit log: every payload the node sent (peer, protocol, kind, bytes, SHA-256).",
        subcommands = {AuditCommand.Verify.class, AuditCommand.Summary.class})
final class AuditCommand implements Runnable {

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** {@code DATA_DIR/audit}, or {@code dir} itself when it holds the log files. */
    static Path auditDir(Path dir) {
        if (!Files.isDirectory(dir)) {
            throw new UserError("--dir: no such directory: " + dir);
        }
        Path audit = dir.resolve("audit");
        if (Files.isDirectory(audit)) {
            return audit;
        }
        try (Stream<Path> s = Files.list(dir)) {
            if (s.anyMatch(p -> p.getFileName().toString().matches("egress-.*\\.jsonl"))) {
                return dir;
            }
        } catch (IOException e) {
            throw new UserError("--dir: cannot read " + dir + ": " + e.getMessage(), e);
        }
        throw new UserError("--dir: " + dir + " has no audit/ directory: not a node's data directory");
    }

    /** {@code chorus audit verify --dir DATA_DIR}: checks the hash chain. */
    @Command(
            name = "verify",
            mixinStandardHelpOptions = true,
            description = {
                "Checks the egress audit log's hash chain and reports the first broken record as FILE:LINE.",
                "Exit code 0 when the chain is intact, 1 when it is broken, 2 for bad input."
            })
    static final class Verify implements Callable<Integer> {
        @Spec
        CommandLine.Model.CommandSpec spec;

        @Option(names = "--dir", required = true, paramLabel = "DATA_DIR", description = "The node's data directory.")
        Path dir;

        @Override
        public Integer call() {
            Path audit = auditDir(dir);
            AuditVerification v;
            try {
                v = EgressAuditLog.verify(audit);
            } catch (AuditLogException e) {
                throw new UserError(e.getMessage(), e);
            }
            PrintWriter out = spec.commandLine().getOut();
            out.printf(Locale.ROOT, "audit log  %s%n", audit);
            out.printf(Locale.ROOT, "files      %d%n", v.files());
            out.printf(
                    Locale.ROOT,
                    "records    %d%s%n",
                    v.records(),
                    v.records() == 0 ? "" : " (seq " + v.firstSeq() + " to " + v.lastSeq() + ")");
            out.printf(Locale.ROOT, "head       %s%n", v.head());
            for (String n : v.notices()) {
                out.println("notice     " + n);
            }
            out.flush();
            if (!v.ok()) {
                PrintWriter err = spec.commandLine().getErr();
                err.println("chorus: audit log broken at " + v.problem());
                err.flush();
                return 1;
            }
            out.println("ok: the chain is intact");
            out.flush();
            return 0;
        }
    }

    /** {@code chorus audit summary --dir DATA_DIR [--since WHEN] [--json]}: bytes sent per peer and per protocol. */
    @Command(
            name = "summary",
            mixinStandardHelpOptions = true,
            description = {
                "Sums the egress audit log: payloads and bytes sent per peer, per protocol and per kind.",
                "Exit code 2 for bad input or a log that cannot be read (run 'chorus audit verify')."
            })
    static final class Summary implements Callable<Integer> {
        private static final Pattern DURATION = Pattern.compile("(\\d{1,9})([smhd])");

        @Spec
        CommandLine.Model.CommandSpec spec;

        @Option(names = "--dir", required = true, paramLabel = "DATA_DIR", description = "The node's data directory.")
        Path dir;

        @Option(
                names = "--since",
                paramLabel = "WHEN",
                description = "Only records from then on: a UTC date (2026-11-30), an instant"
                        + " (2026-11-30T08:00:00Z) or a duration back from now (90m, 24h, 7d).")
        String since;

        @Option(names = "--json", description = "Print JSON instead of tables.")
        boolean json;

        /** Payloads and bytes. */
        private static final class Total {
            long payloads;
            long bytes;

            void add(long b) {
                payloads++;
                bytes += b;
            }
        }

        /** What the log holds from {@code --since} on: totals overall, per peer, protocol and kind, and its span. */
        private static final class Sums {
            final Total all = new Total();
            final Map<String, Total> byPeer = new TreeMap<>();
            final Map<String, Total> byProtocol = new TreeMap<>();
            final Map<String, Total> byKind = new TreeMap<>();
            /** The log's own records (not payloads) by kind. */
            final Map<String, Long> events = new TreeMap<>();

            Instant first;
            Instant last;

            void add(EgressRecord r) {
                if (r.isAuditEvent()) {
                    events.merge(r.kind(), 1L, Long::sum);
                    return;
                }
                all.add(r.bytes());
                byPeer.computeIfAbsent(r.peer(), k -> new Total()).add(r.bytes());
                byProtocol.computeIfAbsent(r.protocol(), k -> new Total()).add(r.bytes());
                byKind.computeIfAbsent(r.kind(), k -> new Total()).add(r.bytes());
                if (first == null) {
                    first = r.time();
                }
                last = r.time();
            }
        }

        @Override
        public Integer call() {
            Instant from = since == null ? Instant.EPOCH : parseSince(since, Instant.now());
            Path audit = auditDir(dir);
            Sums sums = new Sums();
            try {
                EgressAuditLog.read(audit, r -> {
                    if (!r.time().isBefore(from)) {
                        sums.add(r);
                    }
                });
            } catch (AuditLogException | UncheckedIOException e) {
                throw new UserError(e.getMessage(), e);
            }
            PrintWriter out = spec.commandLine().getOut();
            if (json) {
                printJson(out, audit, from, sums);
            } else {
                printTables(out, from, sums);
            }
            out.flush();
            return 0;
        }

        private void printJson(PrintWriter out, Path audit, Instant from, Sums sums) {
            JsonWriter w = JsonWriter.pretty(out);
            w.beginObject();
            w.member("dir", audit.toString());
            instantOrNull(w, "since", since == null ? null : from);
            instantOrNull(w, "first", sums.first);
            instantOrNull(w, "last", sums.last);
            w.member("payloads", sums.all.payloads);
            w.member("bytes", sums.all.bytes);
            group(w, "byPeer", sums.byPeer);
            group(w, "byProtocol", sums.byProtocol);
            group(w, "byKind", sums.byKind);
            w.name("auditEvents").beginObject();
            sums.events.forEach(w::member);
            w.endObject();
            w.endObject();
            w.finish();
            out.println();
        }

        private static void instantOrNull(JsonWriter w, String name, Instant t) {
            w.name(name);
            if (t == null) {
                w.nullValue();
            } else {
                w.value(t.toString());
            }
        }

        private void printTables(PrintWriter out, Instant from, Sums sums) {
            out.printf(
                    Locale.ROOT,
                    "%d payloads, %d bytes sent%s%s%n",
                    sums.all.payloads,
                    sums.all.bytes,
                    since == null ? "" : " since " + from,
                    sums.first == null ? "" : " (" + sums.first + " to " + sums.last + ")");
            table(out, "peer", sums.byPeer);
            table(out, "protocol", sums.byProtocol);
            table(out, "kind", sums.byKind);
            sums.events.forEach((k, n) -> out.printf(
                    Locale.ROOT, "%nnote: %d %s record(s); 'chorus audit verify' shows what they say%n", n, k));
        }

        private static void group(JsonWriter w, String name, Map<String, Total> m) {
            w.name(name).beginObject();
            for (Map.Entry<String, Total> e : sorted(m)) {
                w.name(e.getKey()).beginObject();
                w.member("payloads", e.getValue().payloads);
                w.member("bytes", e.getValue().bytes);
                w.endObject();
            }
            w.endObject();
        }

        /** Largest byte count first. */
        private static List<Map.Entry<String, Total>> sorted(Map<String, Total> m) {
            return m.entrySet().stream()
                    .sorted(Comparator.comparingLong((Map.Entry<String, Total> e) -> -e.getValue().bytes)
                            .thenComparing(Map.Entry::getKey))
                    .toList();
        }

        private static void table(PrintWriter out, String title, Map<String, Total> m) {
            if (m.isEmpty()) {
                return;
            }
            int width = title.length();
            for (String k : m.keySet()) {
                width = Math.max(width, k.length());
            }
            String fmt = "%-" + width + "s  %10s  %14s%n";
            out.println();
            out.printf(Locale.ROOT, fmt, title, "payloads", "bytes");
            for (Map.Entry<String, Total> e : sorted(m)) {
                out.printf(Locale.ROOT, fmt, e.getKey(), e.getValue().payloads, e.getValue().bytes);
            }
        }

        /** A UTC date, an ISO instant, or a duration back from {@code now}. */
        static Instant parseSince(String s, Instant now) {
            Matcher m = DURATION.matcher(s);
            if (m.matches()) {
                long n = Long.parseLong(m.group(1));
                Duration d =
                        switch (m.group(2)) {
                            case "s" -> Duration.ofSeconds(n);
                            case "m" -> Duration.ofMinutes(n);
                            case "h" -> Duration.ofHours(n);
                            default -> Duration.ofDays(n);
                        };
                return now.minus(d);
            }
            try {
                return s.contains("T")
                        ? Instant.parse(s)
                        : LocalDate.parse(s).atStartOfDay(ZoneOffset.UTC).toInstant();
            } catch (DateTimeParseException e) {
                throw new UserError("--since: expected a UTC date (2026-11-30), an instant (2026-11-30T08:00:00Z) or"
                        + " a duration (90m, 24h, 7d), got '" + s + "'");
            }
        }
    }
}
