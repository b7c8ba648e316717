package dev.chorus.testsupport;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

/**
 * Prints, when a test run ends, one line per skipped test or container with the reason: Surefire's console shows only
 * how many were skipped, and a test that quietly skips (a tool not installed) looks like one that passed. Both kinds
 * of skip are listed: disabled ({@code @Disabled}, {@code @EnabledIf...}) and aborted by a failed assumption.
 * Registered through {@code META-INF/services}, so every module whose tests have this module on the class path gets
 * it. The lines go to standard error, which the standard-output check leaves alone.
 */
public final class SkipSummary implements TestExecutionListener {

    private final List<String> lines = new ArrayList<>();
    private TestPlan plan;

    @Override
    public synchronized void testPlanExecutionStarted(TestPlan testPlan) {
        plan = testPlan;
        lines.clear();
    }

    @Override
    public synchronized void executionSkipped(TestIdentifier id, String reason) {
        lines.add(name(id) + ": " + reason);
    }

    @Override
    public synchronized void executionFinished(TestIdentifier id, TestExecutionResult result) {
        if (result.getStatus() == TestExecutionResult.Status.ABORTED) {
            String reason = result.getThrowable()
                    .map(t -> t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage())
                    .orElse("aborted");
            lines.add(name(id) + ": " + reason);
        }
    }

    @Override
    public synchronized void testPlanExecutionFinished(TestPlan testPlan) {
        if (lines.isEmpty()) {
            return;
        }
        PrintStream err = System.err;
        err.println("[SKIPPED] " + lines.size() + (lines.size() == 1 ? " test or container" : " tests or containers")
                + " skipped:");
        for (String line : lines) {
            err.println("[SKIPPED]   " + line);
        }
        err.flush();
    }

    /** {@code Class.method} for a test, the class name for a class, else the display name with its parents'. */
    private String name(TestIdentifier id) {
        Optional<TestSource> source = id.getSource();
        if (source.isPresent() && source.get() instanceof MethodSource m) {
            String simple = m.getClassName().substring(m.getClassName().lastIndexOf('.') + 1);
            String name = simple + "." + m.getMethodName();
            return id.getDisplayName().startsWith(m.getMethodName()) ? name : name + " " + id.getDisplayName();
        }
        if (source.isPresent() && source.get() instanceof ClassSource c) {
            return c.getClassName();
        }
        String name = id.getDisplayName();
        TestPlan p = plan;
        if (p != null) {
            Optional<TestIdentifier> parent = p.getParent(id);
            if (parent.isPresent() && parent.get().getSource().isPresent()) {
                return name(parent.get()) + " " + name;
            }
        }
        return name;
    }
}
