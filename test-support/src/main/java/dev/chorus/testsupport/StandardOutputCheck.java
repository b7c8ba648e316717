package dev.chorus.testsupport;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.Charset;
import java.util.Locale;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test that writes to {@code System.out}: the build's console is for the build, and a line printed by a
 * passing test is noise that hides the lines that matter. A test reports figures and seeds in its assertions'
 * descriptions (shown when it fails), or through a logger; a test of a command's output captures it in a stream of its
 * own. A child process's output is not {@code System.out} and is not checked.
 *
 * <p>Registered through {@code META-INF/services} (Surefire enables extension auto-detection for every module). The
 * configuration parameter {@value #MODE} chooses what a write does: {@code fail} (when the parameter is absent),
 * {@code report} (one line on standard error, the test passes) or {@code off}; the build passes the Maven property
 * {@code chorus.test.stdout}.
 */
public final class StandardOutputCheck implements BeforeEachCallback, AfterEachCallback {

    /** The JUnit configuration parameter that sets the mode. */
    public static final String MODE = "chorus.test.stdout";

    private static final int KEEP = 300;
    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(StandardOutputCheck.class);

    @Override
    public void beforeEach(ExtensionContext context) {
        if (mode(context).equals("off")) {
            return;
        }
        Recording r = Recording.install();
        context.getStore(NS).put(Recording.class, r);
        r.restart();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        Recording r = context.getStore(NS).remove(Recording.class, Recording.class);
        if (r == null || r.written() == 0) {
            return;
        }
        String what = "wrote " + r.written() + " bytes to standard output: \""
                + r.recent().strip() + (r.written() > KEEP ? " ..." : "") + "\"";
        if (mode(context).equals("report")) {
            System.err.println("[STDOUT] " + context.getDisplayName() + " " + what);
            return;
        }
        throw new AssertionError(what + "; report figures in assertion descriptions or a logger, and capture a"
                + " command's output in a stream of the test's own");
    }

    private static String mode(ExtensionContext context) {
        return context.getConfigurationParameter(MODE)
                .map(s -> s.strip().toLowerCase(Locale.ROOT))
                .orElse("fail");
    }

    /** The {@code System.out} installed once: it passes everything through and remembers what each test wrote. */
    static final class Recording extends PrintStream {
        private final Tee tee;

        private Recording(Tee tee, Charset charset) {
            super(tee, true, charset);
            this.tee = tee;
        }

        static synchronized Recording install() {
            if (System.out instanceof Recording r) {
                return r;
            }
            PrintStream original = System.out;
            Recording r = new Recording(new Tee(original), original.charset());
            System.setOut(r);
            return r;
        }

        void restart() {
            flush();
            tee.restart();
        }

        long written() {
            flush();
            return tee.count;
        }

        String recent() {
            return tee.recent.toString(charset());
        }
    }

    private static final class Tee extends OutputStream {
        private final PrintStream original;
        private final java.io.ByteArrayOutputStream recent = new java.io.ByteArrayOutputStream();
        private long count;

        Tee(PrintStream original) {
            this.original = original;
        }

        synchronized void restart() {
            count = 0;
            recent.reset();
        }

        @Override
        public synchronized void write(int b) {
            original.write(b);
            count++;
            if (recent.size() < KEEP) {
                recent.write(b);
            }
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            original.write(b, off, len);
            count += len;
            recent.write(b, off, Math.min(len, Math.max(0, KEEP - recent.size())));
        }

        @Override
        public void flush() throws IOException {
            original.flush();
        }
    }
}
