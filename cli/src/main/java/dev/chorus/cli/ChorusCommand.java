package dev.chorus.cli;

import dev.chorus.node.logging.LogFormat;
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
            dev.chorus.cli.TestnetCommand.class,
            dev.chorus.cli.DemoCommand.class,
            P2pCommand.class,
            KeygenCommand.class,
            PeerIdCommand.class,
            ConsortiumCommand.class,
            ModelCommand.class
        })
public final class ChorusCommand implements Runnable {

    /** The global option that picks the log format; {@link Main} applies it before any command runs. */
    static final String LOG_FORMAT = "--log-format";

    @CommandLine.Option(
            names = LOG_FORMAT,
            scope = CommandLine.ScopeType.INHERIT,
            paramLabel = "FORMAT",
            converter = LogFormatConverter.class,
            description = "Log lines on standard error (and in the node's log file): text (default), json (one"
                    + " object per line) or auto (text on a terminal, json otherwise).")
    LogFormat logFormat;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** {@code text}, {@code json} or {@code auto}. */
    static final class LogFormatConverter implements CommandLine.ITypeConverter<LogFormat> {
        @Override
        public LogFormat convert(String value) {
            try {
                return LogFormat.parse(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
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
