package dev.chorus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The documentation's commands work as written. Every fenced {@code bash}, {@code sh} or {@code console} block that
 * follows a {@code <!-- doctest -->} line in {@link #FILES} runs, in the file's order, as one bash script with {@code
 * set -e} in a directory of its own per file that looks like a checkout: {@code ./chorus} and the bundled data under
 * {@code learning/}. The script must exit 0, or the code the marker names. The marker's options:
 *
 * <ul>
 *   <li>{@code exit=N}: the exit code expected of the block;
 *   <li>{@code timeout=S}: seconds the block may take (default 60);
 *   <li>{@code append="ARGS"}: words added to each {@code ./chorus} command of the block, to shorten a long run.
 * </ul>
 *
 * In a {@code console} block only the lines after a {@code $ } prompt are commands. {@code ./chorus} here runs the
 * CLI on this build's class path with the launcher's JVM options, as the launcher does once the jars are built (the
 * jars come after the tests in the build), and with the C1 compiler only, which starts the many short commands
 * faster; whatever a block leaves running (a node started with {@code &}) is stopped after it. The operator guide's
 * two nodes listen on ports 4711 and 4712 and serve their APIs on 7481 and 7482, which must be free.
 */
class DocCommandsTest {

    /** The files whose marked blocks run: the newcomer's path and the guides' quick starts. */
    static final List<String> FILES = List.of("README.md", "docs/operator-guide.md", "docs/testnet.md");

    private static final Pattern MARKER = Pattern.compile("^<!--\\s*doctest\\b(.*?)-->\\s*$");
    private static final Pattern OPTION = Pattern.compile("(\\w+)=(?:\"([^\"]*)\"|(\\S+))");
    private static final Pattern FENCE = Pattern.compile("^```(bash|sh|console)\\s*$");

    /** Stops with the first failing command; whatever the block left running in the background goes with it. */
    static final String PROLOGUE = "set -e\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n";

    /** One marked block: where it is, its commands, and what the marker asks. */
    record Block(String file, int line, List<String> commands, int exit, int timeoutSeconds, String append) {

        /** The block's commands as a script, {@link #append} added to each {@code ./chorus} command. */
        String script() {
            StringBuilder sb = new StringBuilder(PROLOGUE);
            for (String c : commands) {
                sb.append(append.isEmpty() ? c : appendToChorus(c, append)).append('\n');
            }
            return sb.toString();
        }
    }

    /** {@code command} with {@code words} after each {@code ./chorus ...} invocation's arguments. */
    static String appendToChorus(String command, String words) {
        // A ./chorus invocation runs to the end of the line or to the first shell operator after it.
        Matcher m =
                Pattern.compile("(\\./chorus\\b[^;&|)>]*?)(\\s*(?:[;&|)>]|$))").matcher(command);
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(sb, Matcher.quoteReplacement(m.group(1) + " " + words + m.group(2)));
        }
        m.appendTail(sb);
        return sb.toString();
    }

    /** The marked blocks of {@code text} (from {@code file}), each command's continuation lines joined. */
    static List<Block> blocks(String file, String text) {
        List<String> lines = text.lines().toList();
        List<Block> out = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher marker = MARKER.matcher(lines.get(i).strip());
            if (!marker.matches()) {
                continue;
            }
            Matcher fence =
                    i + 1 < lines.size() ? FENCE.matcher(lines.get(i + 1).strip()) : null;
            if (fence == null || !fence.matches()) {
                throw new AssertionError(file + ":" + (i + 1) + ": a doctest marker must stand right before a ```bash,"
                        + " ```sh or ```console block");
            }
            boolean console = fence.group(1).equals("console");
            int exit = 0;
            int timeout = 60;
            String append = "";
            Matcher o = OPTION.matcher(marker.group(1));
            while (o.find()) {
                String value = o.group(2) != null ? o.group(2) : o.group(3);
                switch (o.group(1)) {
                    case "exit" -> exit = Integer.parseInt(value);
                    case "timeout" -> timeout = Integer.parseInt(value);
                    case "append" -> append = value;
                    default -> throw new AssertionError(file + ":" + (i + 1) + ": unknown doctest option " + o.group());
                }
            }
            List<String> commands = new ArrayList<>();
            StringBuilder current = new StringBuilder();
            int j = i + 2;
            for (; j < lines.size() && !lines.get(j).strip().equals("```"); j++) {
                String line = lines.get(j);
                if (console && current.isEmpty()) {
                    if (!line.startsWith("$ ")) {
                        continue; // output shown in the block
                    }
                    line = line.substring(2);
                }
                if (current.isEmpty() && (line.isBlank() || line.strip().startsWith("#"))) {
                    continue;
                }
                if (line.endsWith("\\")) {
                    current.append(line, 0, line.length() - 1).append(' ');
                } else {
                    commands.add(current.append(line).toString().strip());
                    current.setLength(0);
                }
            }
            out.add(new Block(file, i + 1, List.copyOf(commands), exit, timeout, append));
            i = j;
        }
        return out;
    }

    @Test
    void theMarkerParsesOptionsPromptsAndContinuationLines() {
        String md = String.join(
                "\n",
                "text",
                "<!-- doctest exit=2 timeout=5 append=\"--duration 3s\" -->",
                "```console",
                "$ ./chorus demo \\",
                "    --seed 1",
                "demo: output",
                "$ ./chorus status > s.txt && cat s.txt",
                "```",
                "```bash",
                "not run",
                "```",
                "<!-- doctest -->",
                "```bash",
                "# a comment",
                "a=$(./chorus init --dir x)",
                "```");
        List<Block> blocks = blocks("t.md", md);
        assertThat(blocks).hasSize(2);
        assertThat(blocks.get(0))
                .isEqualTo(new Block(
                        "t.md",
                        2,
                        List.of("./chorus demo      --seed 1", "./chorus status > s.txt && cat s.txt"),
                        2,
                        5,
                        "--duration 3s"));
        assertThat(blocks.get(0).script())
                .isEqualTo(PROLOGUE + "./chorus demo      --seed 1 --duration 3s\n"
                        + "./chorus status --duration 3s > s.txt && cat s.txt\n");
        assertThat(blocks.get(1).commands()).containsExactly("a=$(./chorus init --dir x)");
    }

    @Test
    void everyMarkedBlockRunsAsWritten(@TempDir Path tmp) throws Exception {
        Path root = repositoryRoot();
        List<String> failures = new ArrayList<>();
        int checked = 0;
        for (String file : FILES) {
            List<Block> blocks = blocks(file, Files.readString(root.resolve(file)));
            assertThat(blocks).as(file + " has no <!-- doctest --> block").isNotEmpty();
            Path dir = checkout(root, tmp.resolve(file.replace('/', '-')));
            for (Block b : blocks) {
                checked++;
                String failure = run(b, dir);
                if (failure != null) {
                    failures.add(failure);
                }
            }
        }
        assertThat(failures).as("%d blocks checked", checked).isEmpty();
    }

    /** Runs {@code b} in {@code dir}; null when it exits as expected, else what went wrong, with its output. */
    private static String run(Block b, Path dir) throws Exception {
        Path log = dir.resolve(".doctest-" + b.line() + ".log");
        Process p = new ProcessBuilder("bash", "-c", b.script())
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        try {
            if (!p.waitFor(b.timeoutSeconds(), TimeUnit.SECONDS)) {
                return b.file() + ":" + b.line() + ": still running after " + b.timeoutSeconds() + " s\n"
                        + Files.readString(log, StandardCharsets.UTF_8);
            }
            if (p.exitValue() != b.exit()) {
                return b.file() + ":" + b.line() + ": exit code " + p.exitValue() + ", expected " + b.exit() + "\n"
                        + Files.readString(log, StandardCharsets.UTF_8);
            }
            return null;
        } finally {
            p.descendants().forEach(ProcessHandle::destroy);
            p.destroy();
            for (ProcessHandle h : p.descendants().toList()) {
                h.onExit().get(10, TimeUnit.SECONDS);
            }
        }
    }

    /** A directory that looks like a checkout: {@code ./chorus} and the repository's bundled data sets. */
    private static Path checkout(Path root, Path dir) throws IOException {
        Files.createDirectories(dir);
        Files.createSymbolicLink(dir.resolve("learning"), root.resolve("learning"));
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        String launcher = "#!/usr/bin/env bash\nexec " + quote(java.toString())
                + " --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -XX:TieredStopAtLevel=1"
                + " -cp " + quote(System.getProperty("java.class.path")) + " dev.chorus.cli.Main \"$@\"\n";
        Path chorus = dir.resolve("chorus");
        Files.writeString(chorus, launcher);
        Files.setPosixFilePermissions(chorus, PosixFilePermissions.fromString("rwxr-xr-x"));
        return dir;
    }

    private static String quote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }

    /** The directory above this module that holds the {@code chorus} launcher. */
    static Path repositoryRoot() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isRegularFile(p.resolve("chorus"))) {
            p = p.getParent();
        }
        assertThat(p)
                .as("no chorus launcher above " + Path.of("").toAbsolutePath())
                .isNotNull();
        return p;
    }
}
