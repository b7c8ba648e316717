package dev.chorus.node.cli;

import picocli.CommandLine;

/** Entry point of {@code ./chorus}. */
public final class Main {

    private Main() {}

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the CLI and returns its exit code (2 for bad input, with a one-line message). */
    public static int run(String... args) {
        return new CommandLine(new ChorusCommand()).execute(args);
    }
}
