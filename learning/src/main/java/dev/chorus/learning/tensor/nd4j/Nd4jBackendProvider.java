package dev.chorus.learning.tensor.nd4j;

import dev.chorus.learning.tensor.BackendUnavailableException;
import dev.chorus.learning.tensor.TensorBackend;
import dev.chorus.learning.tensor.TensorBackendProvider;
import java.util.Locale;
import java.util.Optional;

/** Registers the ND4J CPU backend: rank 100, usable wherever ND4J's linux-x86_64 natives load. */
public final class Nd4jBackendProvider implements TensorBackendProvider {

    @Override
    public String name() {
        return "nd4j";
    }

    @Override
    public int rank() {
        return 100;
    }

    @Override
    public boolean cpu() {
        return true;
    }

    @Override
    public Optional<String> unavailableReason() {
        return Probe.REASON;
    }

    @Override
    public TensorBackend create(int threads) {
        return new Nd4jBackend(threads);
    }

    static void requireAvailable() {
        Probe.REASON.ifPresent(reason -> {
            throw new BackendUnavailableException("backend 'nd4j' is not usable: " + reason);
        });
    }

    /** Loads ND4J and OpenBLAS once per JVM; the outcome never changes afterwards. */
    private static final class Probe {
        static final Optional<String> REASON;

        static {
            // JavaCPP prints its loader notices (harmless ones too, such as the newer OpenBLAS
            // natives naming callback classes that ND4J's bindings lack) straight to stderr unless
            // told to log through SLF4J, where the application decides what to show.
            if (System.getProperty("org.bytedeco.javacpp.logger") == null) {
                System.setProperty("org.bytedeco.javacpp.logger", "slf4j");
            }
            REASON = probe(System.getProperty("os.name", "?"), System.getProperty("os.arch", "?"), OpenBlas::load);
        }
    }

    /**
     * Runs {@code load} on a supported platform and turns whatever it throws (a missing native
     * library is an {@link UnsatisfiedLinkError}, often wrapped in an {@link ExceptionInInitializerError})
     * into one line.
     */
    static Optional<String> probe(String osName, String osArch, Runnable load) {
        String os = osName.toLowerCase(Locale.ROOT);
        String arch = osArch.toLowerCase(Locale.ROOT);
        if (!os.startsWith("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
            return Optional.of(
                    "ND4J's native code on the class path is for linux-x86_64, this is " + osName + "/" + osArch);
        }
        try {
            load.run();
            return Optional.empty();
        } catch (Throwable t) {
            return Optional.of("ND4J native libraries failed to load: " + oneLine(t));
        }
    }

    static String oneLine(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage() == null ? "" : ": " + root.getMessage();
        return (root.getClass().getSimpleName() + message)
                .replaceAll("\\s*[\\r\\n]+\\s*", " ")
                .trim();
    }
}
