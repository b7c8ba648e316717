package dev.chorus.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code chorus model}: diagnostics of the model exchange. */
@Command(
        name = "model",
        mixinStandardHelpOptions = true,
        description = "Diagnostics of the model exchange between nodes.",
        subcommands = {ModelPullCommand.class})
final class ModelCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
