package dev.chorus.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.chorus.gpu.kernel.KernelModule;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The committed PTX is what the committed CUDA sources compile to. Where {@code nvcc} is on the
 * PATH, this reruns {@code src/main/cuda/generate-ptx.sh} into a scratch folder and compares the
 * files byte for byte; it is skipped without nvcc (as in CI), and when the nvcc found is another
 * release than the one that generated the committed PTX (whose output may legitimately differ).
 */
class PtxUpToDateTest {

    private static final Path SOURCES = Path.of("src/main/cuda");
    private static final Path COMMITTED = Path.of("src/main/resources/dev/chorus/gpu/kernels");
    private static final Pattern RELEASE = Pattern.compile("release (\\d+\\.\\d+), (V[\\d.]+)");

    private static Optional<Path> nvcc() {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String dir : path.split(File.pathSeparator)) {
            Path candidate = Path.of(dir, "nvcc");
            if (Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    private static String run(Path workDir, String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command)
                .directory(workDir.toFile())
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(5, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " did not finish");
        }
        assertThat(p.exitValue()).as("%s:%n%s", String.join(" ", command), out).isZero();
        return out;
    }

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void committedPtxMatchesTheSources(@TempDir Path scratch) throws Exception {
        Optional<Path> nvcc = nvcc();
        assumeTrue(nvcc.isPresent(), "nvcc is not on the PATH; the committed PTX is used as it is");
        Matcher installed = RELEASE.matcher(run(Path.of("."), nvcc.get().toString(), "--version"));
        assertThat(installed.find()).as("nvcc --version names its release").isTrue();
        String committedHeader = Files.readString(COMMITTED.resolve("elementwise.ptx"));
        Matcher committed = RELEASE.matcher(committedHeader);
        assertThat(committed.find())
                .as("the committed PTX names the nvcc release that made it")
                .isTrue();
        assumeTrue(
                installed.group(2).equals(committed.group(2)),
                "nvcc here is " + installed.group(2) + ", the committed PTX came from " + committed.group(2)
                        + "; regenerate with src/main/cuda/generate-ptx.sh to move to this release");

        run(SOURCES, "bash", "generate-ptx.sh", scratch.toAbsolutePath().toString());

        try (Stream<Path> generated = Files.list(scratch)) {
            assertThat(generated.map(p -> p.getFileName().toString()).sorted())
                    .as("generated PTX files")
                    .containsExactlyElementsOf(Stream.of(KernelModule.values())
                            .map(m -> Path.of(m.resource()).getFileName().toString())
                            .sorted()
                            .toList());
        }
        for (KernelModule m : KernelModule.values()) {
            String name = Path.of(m.resource()).getFileName().toString();
            String fresh = Files.readString(scratch.resolve(name));
            String kept = Files.readString(COMMITTED.resolve(name));
            assertThat(kept)
                    .as("%s is stale: run gpu-backend/src/main/cuda/generate-ptx.sh and commit the result", name)
                    .isEqualTo(fresh);
        }
    }
}
