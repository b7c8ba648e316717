package dev.chorus.learning.tensor;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.ServiceLoader;
import java.util.stream.Collectors;

/** Finds tensor backends with {@link ServiceLoader} and picks one. */
public final class TensorBackends {

    private TensorBackends() {}

    /** Every provider on the class path, best rank first. */
    public static List<TensorBackendProvider> providers() {
        List<TensorBackendProvider> all = new ArrayList<>();
        ServiceLoader.load(TensorBackendProvider.class).forEach(all::add);
        all.sort(Comparator.comparingInt(TensorBackendProvider::rank).reversed());
        return all;
    }

    /**
     * Creates the backend that {@code requested} names ({@code null}, empty or {@code auto}: the
     * best available; {@code cpu}: the best available CPU backend; otherwise a provider name).
     *
     * @throws BackendUnavailableException naming the problem when none fits
     */
    public static TensorBackend create(String requested, int threads) {
        return pick(requested).create(threads);
    }

    /** The provider {@link #create} would use. */
    public static TensorBackendProvider pick(String requested) {
        String want = requested == null ? "auto" : requested.trim().toLowerCase(Locale.ROOT);
        if (want.isEmpty()) {
            want = "auto";
        }
        List<TensorBackendProvider> all = providers();
        if (want.equals("auto") || want.equals("cpu")) {
            boolean cpuOnly = want.equals("cpu");
            for (TensorBackendProvider p : all) {
                if ((!cpuOnly || p.cpu()) && p.unavailableReason().isEmpty()) {
                    return p;
                }
            }
            throw new BackendUnavailableException("no usable " + (cpuOnly ? "CPU " : "") + "tensor backend: "
                    + all.stream()
                            .map(p -> p.name() + " (" + p.unavailableReason().orElse("ok") + ")")
                            .collect(Collectors.joining(", ")));
        }
        for (TensorBackendProvider p : all) {
            if (p.name().equals(want)) {
                p.unavailableReason().ifPresent(reason -> {
                    throw new BackendUnavailableException("backend '" + p.name() + "' is not usable: " + reason);
                });
                return p;
            }
        }
        throw new BackendUnavailableException("unknown backend '" + requested + "'; known: auto, cpu, "
                + all.stream().map(TensorBackendProvider::name).collect(Collectors.joining(", ")));
    }
}
