package dev.chorus.cli;

import dev.chorus.node.setup.UserError;
import dev.chorus.testnet.localnet.NodeProcess;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * {@code --jvm-option}, JVM options for every node process of a testnet ({@code up}, {@code soak}, {@code faults}),
 * mixed in ({@code @Mixin}). They are written to each node's {@value NodeProcess#JVM_OPTIONS_FILE}, which every start
 * of the node reads, restarts included.
 */
public final class JvmOptions {

    @Option(
            names = "--jvm-option",
            paramLabel = "OPTION",
            description = "A JVM option for every node process (repeatable; give it with '=', e.g."
                    + " --jvm-option=-Xmx512m). Written to each node's jvm.options, which its restarts read too."
                    + " Default: none for up, so the JVM sizes the heap itself (up to a quarter of the machine's"
                    + " memory); " + CHECKED_DEFAULT + " for soak and faults.")
    List<String> options = new ArrayList<>();

    /**
     * What {@code soak} and {@code faults} give each node unless told otherwise: a heap limit, so that the bound
     * their checks hold a node to is one an operator would set, and so that many nodes on one machine do not each
     * size their heap for a quarter of it. It also makes the JVM clear soft references unused for about 8 minutes
     * (one second per free MiB) rather than for over an hour, inside a soak's warm-up rather than in its middle.
     */
    static final String CHECKED_DEFAULT = "-Xmx512m";

    /** The options given, or {@link #CHECKED_DEFAULT} when none was: what a command that checks its nodes uses. */
    JvmOptions orCheckedDefault() {
        if (options.isEmpty()) {
            options.add(CHECKED_DEFAULT);
        }
        return this;
    }

    /** The options, checked. */
    List<String> options() {
        try {
            return NodeProcess.checkJvmOptions(options);
        } catch (IllegalArgumentException e) {
            throw new UserError("--jvm-option: " + e.getMessage());
        }
    }

    /** Writes the options to {@code home}'s {@value NodeProcess#JVM_OPTIONS_FILE}. */
    void write(Path home) throws IOException {
        NodeProcess.writeJvmOptions(home, options());
    }
}
