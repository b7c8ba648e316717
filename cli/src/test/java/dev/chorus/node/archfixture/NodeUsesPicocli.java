package dev.chorus.node.archfixture;

import picocli.CommandLine;

/** Test-only fixture for ArchitectureRulesCanFailTest: it breaks an architecture rule on purpose. */
public class NodeUsesPicocli {
    static int run(CommandLine commandLine, String... args) {
        return commandLine.execute(args);
    }
}
