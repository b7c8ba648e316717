package dev.chorus.node.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.jul.LevelChangePropagator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.Context;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import ch.qos.logback.core.rolling.FixedWindowRollingPolicy;
import ch.qos.logback.core.rolling.RollingFileAppender;
import ch.qos.logback.core.rolling.SizeBasedTriggeringPolicy;
import ch.qos.logback.core.status.StatusUtil;
import ch.qos.logback.core.util.Duration;
import ch.qos.logback.core.util.FileSize;
import ch.qos.logback.core.util.StatusPrinter2;
import dev.chorus.privacy.files.OwnerOnlyFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.Set;
import org.slf4j.LoggerFactory;
import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * Sets up Logback in code. {@link DefaultLogConfigurator} applies {@link LogSettings#command} when
 * Logback starts; the CLI applies {@code --log-format}, and {@code node run} the {@code log.*} keys
 * of its config, by calling {@link #configure} again. When the operator names their own file with
 * {@code -Dlogback.configurationFile}, Logback reads it and every call here leaves it alone.
 */
public final class ChorusLogging {

    /** The system property that names an operator's own Logback configuration file. */
    public static final String CONFIGURATION_FILE_PROPERTY = "logback.configurationFile";

    /** The text pattern: local time, level, the logger's class name, message, stack trace. */
    static final String TEXT_PATTERN = "%d{yyyy-MM-dd HH:mm:ss.SSS} %-5level %logger{0} - %msg%n";

    /** Log files kept in all: {@code chorus.log} and {@code chorus.1.log} .. {@code chorus.4.log}. */
    public static final int MAX_FILES = 5;

    /**
     * How often the file's size is checked. Logback checks at most once a minute by default, which
     * lets a file under a burst of logging grow far past its limit; a stat call every quarter
     * second costs nothing and keeps the overshoot to a quarter second of logging.
     */
    static final Duration SIZE_CHECK_PERIOD = Duration.buildByMilliseconds(250);

    private ChorusLogging() {}

    /** Whether the operator configures Logback with their own file (then nothing here changes it). */
    public static boolean operatorConfigured() {
        String file = System.getProperty(CONFIGURATION_FILE_PROPERTY);
        return file != null && !file.isBlank();
    }

    /**
     * Replaces the whole logging setup with {@code settings}: levels, the standard-error appender,
     * and the rolling file appender when {@link LogSettings#file} is set. Does nothing when {@link
     * #operatorConfigured()} or when SLF4J is bound to something other than Logback.
     */
    public static synchronized void configure(LogSettings settings) {
        bridgeJavaUtilLogging();
        if (operatorConfigured() || !(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
            return;
        }
        apply(context, settings);
    }

    /**
     * Routes {@code java.util.logging}, and with it {@code System.Logger}, into SLF4J: the JDK's
     * console handler is removed so that no record is printed twice or in another format.
     */
    static synchronized void bridgeJavaUtilLogging() {
        if (!SLF4JBridgeHandler.isInstalled()) {
            SLF4JBridgeHandler.removeHandlersForRootLogger();
            SLF4JBridgeHandler.install();
        }
    }

    /** Configures {@code context} from scratch; also the first configuration, from {@link DefaultLogConfigurator}. */
    static void apply(LoggerContext context, LogSettings settings) {
        long since = System.currentTimeMillis();
        context.reset();
        // Keep java.util.logging's levels in step with ours, so that a disabled record costs
        // nothing on the JUL side and an enabled one is not dropped there.
        LevelChangePropagator propagator = new LevelChangePropagator();
        propagator.setContext(context);
        propagator.setResetJUL(true);
        propagator.start();
        context.addListener(propagator);

        Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.toLevel(settings.rootLevel()));
        for (Map.Entry<String, String> e : LogSettings.LIBRARY_LEVELS.entrySet()) {
            context.getLogger(e.getKey()).setLevel(Level.toLevel(e.getValue()));
        }
        for (Map.Entry<String, String> e : settings.levels().entrySet()) {
            context.getLogger(e.getKey()).setLevel(Level.toLevel(e.getValue()));
        }

        LogFormat format = settings.format().resolve();
        ConsoleAppender<ILoggingEvent> console = new ConsoleAppender<>();
        console.setName("stderr");
        console.setTarget("System.err");
        start(context, console, encoder(context, format));
        root.addAppender(console);

        if (settings.file() != null) {
            createOwnerOnly(settings.file());
            root.addAppender(rollingFile(context, settings.file(), settings.maxFileBytes(), format));
        }
        // Logback's own messages stay quiet, unless something failed (a log file that cannot be
        // opened): then the operator sees why, on standard error.
        if (!new StatusUtil(context).isErrorFree(since)) {
            StatusPrinter2 printer = new StatusPrinter2();
            printer.setPrintStream(System.err);
            printer.printInCaseOfErrorsOrWarnings(context, since);
        }
    }

    /**
     * Creates the log file's directory (0700) and the file (0600) before the appender opens it, which would create
     * them with the umask's modes: the log names peers and files. A failure is left to the appender to report.
     */
    private static void createOwnerOnly(Path file) {
        try {
            OwnerOnlyFiles.createDirectories(file.toAbsolutePath().getParent());
            OwnerOnlyFiles.open(file, Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE))
                    .close();
        } catch (IOException e) {
            // the appender tries again and reports why it cannot open the file
        }
    }

    private static RollingFileAppender<ILoggingEvent> rollingFile(
            LoggerContext context, Path file, long maxBytes, LogFormat format) {
        RollingFileAppender<ILoggingEvent> appender = new RollingFileAppender<>();
        appender.setName("file");
        appender.setContext(context);
        appender.setFile(file.toString());
        appender.setAppend(true);

        String name = file.getFileName().toString();
        int dot = name.lastIndexOf('.');
        String stem = dot > 0 ? name.substring(0, dot) : name;
        String ext = dot > 0 ? name.substring(dot) : "";
        FixedWindowRollingPolicy rolling = new FixedWindowRollingPolicy();
        rolling.setContext(context);
        rolling.setParent(appender);
        rolling.setFileNamePattern(file.resolveSibling(stem + ".%i" + ext).toString());
        rolling.setMinIndex(1);
        rolling.setMaxIndex(MAX_FILES - 1);
        rolling.start();

        SizeBasedTriggeringPolicy<ILoggingEvent> trigger = new SizeBasedTriggeringPolicy<>();
        trigger.setContext(context);
        trigger.setMaxFileSize(new FileSize(maxBytes));
        trigger.setCheckIncrement(SIZE_CHECK_PERIOD);
        trigger.start();

        appender.setRollingPolicy(rolling);
        appender.setTriggeringPolicy(trigger);
        start(context, appender, encoder(context, format));
        return appender;
    }

    private static void start(
            Context context, OutputStreamAppender<ILoggingEvent> appender, Encoder<ILoggingEvent> encoder) {
        appender.setContext(context);
        appender.setEncoder(encoder);
        appender.start();
    }

    private static Encoder<ILoggingEvent> encoder(LoggerContext context, LogFormat format) {
        if (format == LogFormat.JSON) {
            JsonLineLayout layout = new JsonLineLayout();
            layout.setContext(context);
            layout.start();
            LayoutWrappingEncoder<ILoggingEvent> encoder = new LayoutWrappingEncoder<>();
            encoder.setContext(context);
            encoder.setLayout(layout);
            encoder.setCharset(StandardCharsets.UTF_8);
            encoder.start();
            return encoder;
        }
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern(TEXT_PATTERN);
        encoder.setCharset(StandardCharsets.UTF_8);
        encoder.start();
        return encoder;
    }
}
