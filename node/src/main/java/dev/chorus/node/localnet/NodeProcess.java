package dev.chorus.node.localnet;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Starts {@code chorus node run --config FILE} as a detached JVM: the same {@code java} binary and class path as
 * this process, standard input from {@code /dev/null}, standard output and error appended to files. The child
 * does not depend on this process: it keeps running after {@code up} exits, until {@code down} signals it.
 */
final class NodeProcess {

    static final String STDOUT = "stdout.log";
    static final String STDERR = "stderr.log";

    private NodeProcess() {}

    static Process start(Path config, Path logDir) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        ProcessBuilder pb = new ProcessBuilder(List.of(
                java,
                "--enable-native-access=ALL-UNNAMED",
                "--sun-misc-unsafe-memory-access=allow",
                "-cp",
                System.getProperty("java.class.path"),
                "dev.chorus.node.cli.Main",
                "node",
                "run",
                "--config",
                config.toString()));
        pb.directory(config.getParent().toFile());
        pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.redirectOutput(
                ProcessBuilder.Redirect.appendTo(logDir.resolve(STDOUT).toFile()));
        pb.redirectError(ProcessBuilder.Redirect.appendTo(logDir.resolve(STDERR).toFile()));
        return pb.start();
    }
}
