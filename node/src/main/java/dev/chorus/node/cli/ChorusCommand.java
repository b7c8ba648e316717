package dev.chorus.node.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code chorus} command line: one sub-command per job. */
@Command(
        name = "chorus",
        mixinStandardHelpOptions = true,
        versionProvider = ChorusCommand.Version.class,
        description = "Chorus: train models together over libp2p without sharing raw records.",
        subcommands = {
            CommandLine.HelpCommand.class,
            TrainCommand.class,
            PartitionCommand.class,
            BenchCommand.class,
            InitCommand.class,
            NodeCommand.class,
            StatusCommand.class,
            AuditCommand.class,
            ConfigCommand.class,
            dev.chorus.node.testnet.TestnetCommand.class,
            dev.chorus.node.testnet.DemoCommand.class,
            P2pCommand.class,
            KeygenCommand.class,
            PeerIdCommand.class
        })
public final class ChorusCommand implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** Reads the version from the jar manifest. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = ChorusCommand.class.getPackage().getImplementationVersion();
            return new String[] {"chorus " + (v == null ? "(development build)" : v)};
        }
    }
}
