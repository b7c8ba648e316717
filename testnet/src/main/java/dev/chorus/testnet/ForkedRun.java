package dev.chorus.testnet;

import dev.chorus.node.setup.UserError;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.InvalidClassException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * One measured run of a testnet, with its warm-up, in a JVM of its own ({@code --fork}), as JMH forks each trial:
 * the run then starts from the same JIT state whatever ran before it in the comparison. In one JVM it does not on a
 * machine with few cores, where many training threads leave the compiler threads little CPU and what one run
 * compiled shapes the next (docs/experiments/2026-straggler-experiment.md has the runs).
 *
 * <p>The parent starts this JVM's own command line again ({@link #command}) with the hidden {@code --fork-child}
 * option naming the run and {@code --fork-result} naming the file the child writes its {@link Result} to; the child
 * warms up and measures that run only, and writes no report. Its output lines (progress, errors) are passed on.
 */
public final class ForkedRun {

    /**
     * What a child sends back: its warm-up runs (unreported, listed in the summary), the measured run, and the
     * child's process id.
     */
    public record Result(List<TestnetRun> warmUps, TestnetRun run, long pid) implements Serializable {}

    /** The lines of a failed child's output kept for its error message. */
    private static final int TAIL_LINES = 10;

    /**
     * What a result file may hold: the testnet's records and the collections they use (a pattern for a class also
     * admits arrays of it; arrays of primitives are admitted).
     */
    private static final ObjectInputFilter RESULT_CLASSES = ObjectInputFilter.Config.createFilter(
            "maxdepth=20;dev.chorus.testnet.*;java.lang.Enum;java.lang.String;java.lang.Number;java.lang.Double;java.lang.Long;"
                    + "java.lang.Integer;java.util.ArrayList;java.util.ImmutableCollections$*;java.util.CollSer;"
                    + "java.lang.Object;!*");

    private ForkedRun() {}

    /** The id of a run for {@code --fork-child}: {@code STRATEGY:impaired} or {@code STRATEGY:ideal}. */
    public static String id(StrategyKind kind, boolean impaired) {
        return kind.id() + (impaired ? ":impaired" : ":ideal");
    }

    /** The run that {@code --fork-child ID} names; an {@link IllegalArgumentException} names what is wrong. */
    public static PlannedRun parse(String id) {
        int colon = id.lastIndexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("--fork-child: expected STRATEGY:impaired|ideal, got \"" + id + "\"");
        }
        String variant = id.substring(colon + 1);
        boolean impaired =
                switch (variant) {
                    case "impaired" -> true;
                    case "ideal" -> false;
                    default ->
                        throw new IllegalArgumentException(
                                "--fork-child: expected impaired or ideal after the colon, got \"" + variant + "\"");
                };
        return new PlannedRun(StrategyKind.parse(id.substring(0, colon)), impaired);
    }

    /**
     * This JVM's command line for a child: the same java executable, JVM options and class path, the main class,
     * then {@code args} (the parent's arguments followed by the child's options).
     */
    public static List<String> command(Class<?> mainClass, List<String> args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            // A debugger's agent would listen on the parent's port a second time.
            if (!a.startsWith("-agentlib:jdwp") && !a.startsWith("-Xrunjdwp")) {
                cmd.add(a);
            }
        }
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(mainClass.getName());
        cmd.addAll(args);
        return cmd;
    }

    /**
     * Runs a child and returns its result. Its output lines go to {@code output} as they come; a child that fails
     * (or writes no result) is reported as a {@link UserError} with the last lines it wrote.
     */
    public static Result run(List<String> command, Path resultFile, Consumer<String> output)
            throws InterruptedException {
        Process child;
        try {
            child = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new UserError("--fork: could not start a JVM for the run: " + e.getMessage());
        }
        Deque<String> tail = new ArrayDeque<>();
        try {
            child.getOutputStream().close();
            try (BufferedReader r =
                    new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    output.accept(line);
                    tail.addLast(line);
                    if (tail.size() > TAIL_LINES) {
                        tail.removeFirst();
                    }
                }
            }
            int code = child.waitFor();
            if (code != 0) {
                throw new UserError(String.format(
                        Locale.ROOT,
                        "--fork: the JVM of a run exited with code %d%s",
                        code,
                        tail.isEmpty() ? "" : "; its last output:\n" + String.join("\n", tail)));
            }
            return read(resultFile);
        } catch (IOException e) {
            throw new UserError("--fork: reading a run's result: " + e.getMessage());
        } finally {
            // An interrupted parent (or one whose reading failed) takes its child down with it.
            child.destroyForcibly();
        }
    }

    public static void write(Path file, Result result) throws IOException {
        try (OutputStream o = Files.newOutputStream(file);
                ObjectOutputStream out = new ObjectOutputStream(o)) {
            out.writeObject(result);
        }
    }

    static Result read(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new IOException("the run wrote no result to " + file);
        }
        try (InputStream i = Files.newInputStream(file);
                ObjectInputStream in = new ObjectInputStream(i)) {
            in.setObjectInputFilter(RESULT_CLASSES);
            if (in.readObject() instanceof Result r && r.run() != null && r.warmUps() != null) {
                return r;
            }
            throw new IOException(file + " holds no testnet run");
        } catch (InvalidClassException | ClassNotFoundException e) {
            throw new IOException(file + " holds something other than a testnet run: " + e.getMessage(), e);
        }
    }
}
