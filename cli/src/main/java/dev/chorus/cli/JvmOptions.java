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
                    + " memory); " + HEAP_LIMIT + " " + SOFT_REFERENCES + " for soak and faults.")
    List<String> options = new ArrayList<>();

    /**
     * What {@code soak} and {@code faults} give each node unless told otherwise. A heap limit, so that the bound
     * their checks hold a node to is one an operator would set, and so that many nodes on one machine do not each
     * size their heap for a quarter of it. And soft references cleared at every collection: the JVM otherwise keeps
     * a softly reachable object for one second per MiB of free heap since its last use (8 minutes at 512 MiB), and
     * a leak check samples the heap after a collection to see what the node holds, which softly reachable objects
     * are not (the JVM clears them all before it runs out of memory). Late class loading makes such objects appear
     * at any time: a class loaded from a signed jar makes the class path re-read that jar's manifest, which the
     * {@code JarFile} keeps softly; Bouncy Castle's provider jar has a digest per class, 2.2 MiB on the heap.
     */
    static final List<String> CHECKED_DEFAULTS = List.of(JvmOptions.HEAP_LIMIT, JvmOptions.SOFT_REFERENCES);

    private static final String HEAP_LIMIT = "-Xmx512m";
    private static final String SOFT_REFERENCES = "-XX:SoftRefLRUPolicyMSPerMB=0";

    /** The options given, or {@link #CHECKED_DEFAULTS} when none was: what a command that checks its nodes uses. */
    JvmOptions orCheckedDefault() {
        if (options.isEmpty()) {
            options.addAll(CHECKED_DEFAULTS);
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
