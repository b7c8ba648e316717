package dev.chorus.cli;

import dev.chorus.learning.data.DataException;
import dev.chorus.learning.tensor.BackendUnavailableException;
import dev.chorus.node.logging.ChorusLogging;
import dev.chorus.node.logging.LogFormat;
import dev.chorus.node.logging.LogSettings;
import dev.chorus.node.setup.UserError;
import java.io.PrintWriter;
import picocli.CommandLine;

/** Entry point of {@code ./chorus}. */
public final class Main {

    /** Exit code for bad input: a usage error, a missing file, unusable data. */
    public static final int EXIT_USAGE = 2;

    private Main() {}

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the CLI and returns its exit code (2 for bad input, with a one-line message). */
    public static int run(String... args) {
        return commandLine().execute(args);
    }

    /** The configured command line, with the error handling every sub-command shares. */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new ChorusCommand());
        WordWrapHelp.install(cl);
        TestnetCommand.separateResearchOptions(cl.getSubcommands().get("testnet"));
        cl.setExecutionStrategy(parseResult -> {
            LogFormat format = logFormat(parseResult);
            ChorusLogging.configure(LogSettings.command(format == null ? LogFormat.TEXT : format));
            return new CommandLine.RunLast().execute(parseResult);
        });
        cl.setParameterExceptionHandler((ex, ignored) -> {
            CommandLine cmd = ex.getCommandLine();
            PrintWriter err = cmd.getErr();
            err.println("chorus: " + ex.getMessage() + " (see '"
                    + cmd.getCommandSpec().qualifiedName() + " --help')");
            err.flush();
            return EXIT_USAGE;
        });
        cl.setExecutionExceptionHandler((ex, cmd, parseResult) -> {
            String message = userMessage(ex);
            if (message == null) {
                throw ex;
            }
            cmd.getErr().println("chorus: " + message);
            cmd.getErr().flush();
            return EXIT_USAGE;
        });
        return cl;
    }

    /**
     * The value of {@code --log-format} wherever it stands on the command line (it is inherited by
     * every sub-command), or null when it is not given.
     */
    static LogFormat logFormat(CommandLine.ParseResult parseResult) {
        LogFormat format = null;
        for (CommandLine.ParseResult p = parseResult; p != null; p = p.subcommand()) {
            if (p.hasMatchedOption(ChorusCommand.LOG_FORMAT)) {
                format = p.matchedOptionValue(ChorusCommand.LOG_FORMAT, null);
            }
        }
        return format;
    }

    /** The one-line message for an exception that reports bad input, or null for a real failure. */
    static String userMessage(Throwable ex) {
        if (ex instanceof UserError || ex instanceof BackendUnavailableException || ex instanceof DataException) {
            return ex.getMessage();
        }
        return null;
    }
}
