package dev.chorus.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * Runs fixture classes through a real JUnit launcher, with the listener and the extension registered as in every
 * module (the fixtures are nested classes, which Surefire does not run on its own).
 */
class TestSupportTest {

    static class Printing {
        @Test
        void prints() {
            System.out.println("a figure nobody asked for");
        }

        @Test
        void staysQuiet() {
            System.err.println("standard error is not checked");
        }
    }

    static class Skipping {
        @Test
        @Disabled("not on this machine")
        void disabled() {}

        @Test
        void assumes() {
            Assumptions.assumeTrue(false, "Chromium is not installed");
        }

        @Test
        void runs() {}
    }

    record Run(Map<String, TestExecutionResult> results, String stdout, String stderr) {}

    private static Run run(Class<?> fixture, String mode) {
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass(fixture))
                .configurationParameter("junit.jupiter.extensions.autodetection.enabled", "true")
                .configurationParameter(StandardOutputCheck.MODE, mode)
                .build();
        Map<String, TestExecutionResult> results = new java.util.concurrent.ConcurrentHashMap<>();
        List<String> unused = new CopyOnWriteArrayList<>();
        TestExecutionListener collect = new TestExecutionListener() {
            @Override
            public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                if (id.isTest()) {
                    results.put(id.getDisplayName(), result);
                }
            }

            @Override
            public void executionSkipped(TestIdentifier id, String reason) {
                unused.add(reason);
            }
        };
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
        ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
        System.setOut(new PrintStream(outBytes, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(errBytes, true, StandardCharsets.UTF_8));
        try {
            LauncherFactory.create().execute(request, collect);
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
        return new Run(results, outBytes.toString(StandardCharsets.UTF_8), errBytes.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aTestThatWritesToStandardOutputFailsNamingWhatItWrote() {
        Run r = run(Printing.class, "fail");
        assertThat(r.results().get("prints()").getStatus()).isEqualTo(TestExecutionResult.Status.FAILED);
        assertThat(r.results().get("prints()").getThrowable().orElseThrow())
                .isInstanceOf(AssertionError.class)
                .hasMessageStartingWith("wrote 26 bytes to standard output: \"a figure nobody asked for\"; report");
        assertThat(r.results().get("staysQuiet()").getStatus()).isEqualTo(TestExecutionResult.Status.SUCCESSFUL);
        assertThat(r.stdout()).contains("a figure nobody asked for"); // passed through, not swallowed
    }

    @Test
    void reportModeLetsTheTestPassWithALineOnStandardError() {
        Run r = run(Printing.class, "report");
        assertThat(r.results().get("prints()").getStatus()).isEqualTo(TestExecutionResult.Status.SUCCESSFUL);
        assertThat(r.stderr()).contains("[STDOUT] prints() wrote 26 bytes to standard output");
        assertThat(run(Printing.class, "off").stderr()).doesNotContain("[STDOUT]");
    }

    @Test
    void everySkipIsPrintedWithItsReasonWhenTheRunEnds() {
        Run r = run(Skipping.class, "fail");
        assertThat(r.stderr().lines().filter(l -> l.startsWith("[SKIPPED]")))
                .containsExactlyInAnyOrder(
                        "[SKIPPED] 2 tests or containers skipped:",
                        "[SKIPPED]   TestSupportTest$Skipping.disabled: not on this machine",
                        "[SKIPPED]   TestSupportTest$Skipping.assumes: Assumption failed: Chromium is not installed");
        assertThat(run(Printing.class, "fail").stderr()).doesNotContain("[SKIPPED]");
    }

    @Test
    void figuresAreLoggedAtDebugUnderTheCallersName() {
        java.util.logging.Logger jul = java.util.logging.Logger.getLogger(TestSupportTest.class.getName());
        List<java.util.logging.LogRecord> records = new CopyOnWriteArrayList<>();
        java.util.logging.Handler handler = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                records.add(r);
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        java.util.logging.Level before = jul.getLevel();
        jul.setLevel(java.util.logging.Level.ALL);
        jul.setUseParentHandlers(false); // only this handler: the console stays quiet
        jul.addHandler(handler);
        try {
            TestLog.figures("rate %.1f steps/s%n", 12.25);
            TestLog.figures("100% of the rows");
        } finally {
            jul.removeHandler(handler);
            jul.setUseParentHandlers(true);
            jul.setLevel(before);
        }
        assertThat(records)
                .extracting(java.util.logging.LogRecord::getMessage)
                .containsExactly("rate 12.3 steps/s", "100% of the rows");
        assertThat(records).allMatch(r -> r.getLevel() == java.util.logging.Level.FINE);
    }
}
