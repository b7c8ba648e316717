package dev.chorus.gpu.cuda;

import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Where the CUDA driver and cuBLAS are found. The driver is {@code libcuda.so.1}, which the NVIDIA
 * driver installs on the loader path. cuBLAS ships with the CUDA toolkit (or a Python wheel), so it
 * is searched for: first {@code CHORUS_CUBLAS} (a file, or a folder holding it) or the system
 * property {@code chorus.cublas}; then {@code libcublas.so.13}, {@code .12} and {@code
 * libcublas.so} on the loader path ({@code LD_LIBRARY_PATH}, {@code ldconfig}); then the same names
 * in {@code $CUDA_HOME/lib64}, {@code $CUDA_PATH/lib64} and {@code /usr/local/cuda*}/lib64.
 */
public final class CudaLibraries {

    public static final String DRIVER = "libcuda.so.1";
    public static final List<String> CUBLAS_NAMES = List.of("libcublas.so.13", "libcublas.so.12", "libcublas.so");

    /** Opens a shared library by name (loader path) or by absolute path. */
    @FunctionalInterface
    public interface Opener {
        /**
         * @throws IllegalArgumentException when the library cannot be loaded
         */
        SymbolLookup open(String nameOrPath);

        /** The system's dynamic loader; libraries stay loaded for the life of the process. */
        static Opener system() {
            return nameOrPath -> nameOrPath.startsWith("/")
                    ? SymbolLookup.libraryLookup(Path.of(nameOrPath), Arena.global())
                    : SymbolLookup.libraryLookup(nameOrPath, Arena.global());
        }
    }

    /** A library that was opened: what was asked for, and its symbols. */
    public record Opened(String name, SymbolLookup lookup) {}

    private CudaLibraries() {}

    /** The driver, or empty when {@code libcuda.so.1} cannot be loaded. */
    public static Optional<Opened> openDriver(Opener opener) {
        try {
            return Optional.of(new Opened(DRIVER, opener.open(DRIVER)));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** The places {@link #openCublas} tries, in order. */
    public static List<String> cublasCandidates(Map<String, String> env, String property) {
        Set<String> out = new LinkedHashSet<>();
        String explicit = property != null && !property.isBlank() ? property : env.get("CHORUS_CUBLAS");
        if (explicit != null && !explicit.isBlank()) {
            Path p = Path.of(explicit.trim());
            if (Files.isDirectory(p)) {
                for (String name : CUBLAS_NAMES) {
                    out.add(p.resolve(name).toAbsolutePath().toString());
                }
            } else {
                out.add(p.toAbsolutePath().toString());
            }
            return List.copyOf(out);
        }
        out.addAll(CUBLAS_NAMES);
        List<Path> dirs = new ArrayList<>();
        for (String var : List.of("CUDA_HOME", "CUDA_PATH")) {
            String v = env.get(var);
            if (v != null && !v.isBlank()) {
                dirs.add(Path.of(v.trim(), "lib64"));
            }
        }
        dirs.add(Path.of("/usr/local/cuda/lib64"));
        dirs.addAll(versionedToolkits(Path.of("/usr/local")));
        for (Path dir : dirs) {
            for (String name : CUBLAS_NAMES) {
                Path candidate = dir.resolve(name);
                if (Files.exists(candidate)) {
                    out.add(candidate.toAbsolutePath().toString());
                }
            }
        }
        return List.copyOf(out);
    }

    /** {@code /usr/local/cuda-X.Y/lib64}, newest first. */
    private static List<Path> versionedToolkits(Path root) {
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(root)) {
            return s.filter(p -> p.getFileName().toString().matches("cuda-\\d+(\\.\\d+)*"))
                    .sorted(Comparator.comparing((Path p) -> p.getFileName().toString())
                            .reversed())
                    .map(p -> p.resolve("lib64"))
                    .toList();
        } catch (Exception e) {
            return List.of();
        }
    }

    /** The first candidate that loads, or empty. */
    public static Optional<Opened> openCublas(Opener opener, List<String> candidates) {
        for (String candidate : candidates) {
            try {
                return Optional.of(new Opened(candidate, opener.open(candidate)));
            } catch (IllegalArgumentException e) {
                // not this one; try the next
            }
        }
        return Optional.empty();
    }
}
