package dev.chorus.node.logging;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ConfiguratorRank;
import ch.qos.logback.core.spi.ContextAwareBase;

/**
 * Logback's first configuration, found through {@code META-INF/services}: text on standard error,
 * warnings and errors only ({@link LogSettings#command}), set up in code before Logback would look
 * for a {@code logback.xml}. With {@code -Dlogback.configurationFile} it steps aside and Logback
 * reads that file.
 */
@ConfiguratorRank(ConfiguratorRank.CUSTOM_NORMAL_PRIORITY)
public final class DefaultLogConfigurator extends ContextAwareBase implements Configurator {

    @Override
    public ExecutionStatus configure(LoggerContext context) {
        ChorusLogging.bridgeJavaUtilLogging();
        if (ChorusLogging.operatorConfigured()) {
            return ExecutionStatus.INVOKE_NEXT_IF_ANY;
        }
        ChorusLogging.apply(context, LogSettings.command(LogFormat.TEXT));
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }
}
