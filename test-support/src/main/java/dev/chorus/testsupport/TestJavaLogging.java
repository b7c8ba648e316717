package dev.chorus.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.logging.LogManager;

/**
 * The {@code java.util.logging} configuration of every module's tests ({@code -Djava.util.logging.config.class} in
 * Surefire's argLine): {@code test-logging.properties} next to this class. The JDK's default prints every INFO
 * record on two lines, which fills a test run's console with the expected chatter of passing tests.
 */
public final class TestJavaLogging {

    /** Called by {@link LogManager} when it starts, instead of reading the JDK's logging.properties. */
    public TestJavaLogging() {
        try (InputStream in = TestJavaLogging.class.getResourceAsStream("test-logging.properties")) {
            if (in == null) {
                throw new IllegalStateException("test-logging.properties is missing from the test-support jar");
            }
            LogManager.getLogManager().readConfiguration(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
