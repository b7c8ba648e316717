package dev.chorus.gpu.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The driver bindings against NVIDIA's own declarations: for every {@link DriverFunction}, the
 * symbol is what {@code cuda.h} maps the API name to, and the FFM descriptor has the prototype's
 * arity and argument kinds; the {@link CuResult} table equals the header's {@code CUresult} enum;
 * the numeric constants match. Runs where a CUDA toolkit's {@code cuda.h} is installed
 * ({@code CUDA_HOME}, {@code /usr/local/cuda*}); skipped elsewhere (as in CI).
 */
class CudaHeaderTest {

    private static String header;

    @BeforeAll
    static void findHeader() throws IOException {
        List<Path> candidates = new ArrayList<>();
        for (String var : List.of("CUDA_HOME", "CUDA_PATH")) {
            String v = System.getenv(var);
            if (v != null && !v.isBlank()) {
                candidates.add(Path.of(v, "include", "cuda.h"));
            }
        }
        candidates.add(Path.of("/usr/local/cuda/include/cuda.h"));
        Path local = Path.of("/usr/local");
        if (Files.isDirectory(local)) {
            try (Stream<Path> s = Files.list(local)) {
                s.filter(p -> p.getFileName().toString().startsWith("cuda-"))
                        .sorted()
                        .forEach(p -> candidates.add(p.resolve("include/cuda.h")));
            }
        }
        Optional<Path> found = candidates.stream().filter(Files::isRegularFile).findFirst();
        assumeTrue(found.isPresent(), "no cuda.h installed (looked in " + candidates + ")");
        header = Files.readString(found.get());
    }

    /** API name to the symbol a {@code #define} maps it to ({@code __CUDA_API_PTSZ(x)} is x). */
    private static Map<String, String> defines() {
        Map<String, String> out = new HashMap<>();
        Matcher m = Pattern.compile(
                        "(?m)^\\s*#define\\s+(cu\\w+)\\s+(?:__CUDA_API_PTSZ\\((\\w+)\\)|__CUDA_API_PTDS\\((\\w+)\\)|(cu\\w+))\\s*$")
                .matcher(header);
        while (m.find()) {
            String target = m.group(2) != null ? m.group(2) : m.group(3) != null ? m.group(3) : m.group(4);
            out.putIfAbsent(m.group(1), target);
        }
        return out;
    }

    /** The parameter list of the first prototype of {@code name}. */
    private static Optional<String> prototype(String name) {
        Matcher m = Pattern.compile("CUresult\\s+CUDAAPI\\s+" + name + "\\s*\\(([^)]*)\\)")
                .matcher(header);
        return m.find() ? Optional.of(m.group(1)) : Optional.empty();
    }

    private static MemoryLayout layoutOf(String parameter) {
        String p = parameter.replaceAll("/\\*.*?\\*/", "").strip();
        if (p.contains("*")) {
            return ValueLayout.ADDRESS;
        }
        String type = p.replaceAll("\\s+\\w+$", "").replace("const ", "").strip();
        return switch (type) {
            case "int", "unsigned int", "CUdevice", "CUdevice_attribute", "CUresult" -> ValueLayout.JAVA_INT;
            case "size_t", "CUdeviceptr" -> ValueLayout.JAVA_LONG;
            case "float" -> ValueLayout.JAVA_FLOAT;
            case "CUcontext", "CUmodule", "CUfunction", "CUstream", "CUevent" -> ValueLayout.ADDRESS;
            default -> throw new IllegalArgumentException("unmapped C type '" + type + "' in '" + parameter + "'");
        };
    }

    @Test
    void symbolsAreTheOnesTheHeaderMapsTo() {
        Map<String, String> defines = defines();
        for (DriverFunction f : DriverFunction.values()) {
            String mapped = defines.getOrDefault(f.headerName(), f.headerName());
            assertThat(f.symbol()).as("symbol of %s", f.headerName()).isEqualTo(mapped);
        }
    }

    @Test
    void descriptorsMatchThePrototypes() {
        for (DriverFunction f : DriverFunction.values()) {
            String params = prototype(f.headerName())
                    .orElseThrow(() -> new AssertionError("cuda.h declares no " + f.headerName()));
            List<MemoryLayout> expected = new ArrayList<>();
            if (!params.strip().equals("void")) {
                for (String p : params.split(",")) {
                    expected.add(layoutOf(p));
                }
            }
            assertThat(f.descriptor().argumentLayouts())
                    .as("arguments of %s(%s)", f.headerName(), params.replaceAll("\\s+", " "))
                    .containsExactlyElementsOf(expected);
        }
    }

    @Test
    void resultNamesEqualTheHeaderEnum() {
        Matcher block = Pattern.compile("typedef enum cudaError_enum \\{(.*?)\\} CUresult;", Pattern.DOTALL)
                .matcher(header);
        if (!block.find()) {
            fail("cuda.h has no cudaError_enum");
        }
        Map<Integer, String> fromHeader = new TreeMap<>();
        Matcher e = Pattern.compile("(CUDA_\\w+)\\s*=\\s*(\\d+)").matcher(block.group(1));
        while (e.find()) {
            fromHeader.put(Integer.parseInt(e.group(2)), e.group(1));
        }
        assertThat(fromHeader).hasSizeGreaterThan(50);
        assertThat(CuResult.names()).isEqualTo(fromHeader);
    }

    private static int constant(String name) {
        Matcher m =
                Pattern.compile("\\b" + name + "\\s*=\\s*(0x[0-9a-fA-F]+|\\d+)").matcher(header);
        if (!m.find()) {
            throw new AssertionError("cuda.h does not define " + name);
        }
        return Integer.decode(m.group(1));
    }

    @Test
    void constantsMatchTheHeader() {
        assertThat(CudaDriver.ATTRIBUTE_MULTIPROCESSOR_COUNT)
                .isEqualTo(constant("CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT"));
        assertThat(CudaDriver.ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)
                .isEqualTo(constant("CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR"));
        assertThat(CudaDriver.ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)
                .isEqualTo(constant("CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR"));
        assertThat(CudaDriver.STREAM_NON_BLOCKING).isEqualTo(constant("CU_STREAM_NON_BLOCKING"));
        assertThat(CudaDriver.EVENT_DEFAULT).isEqualTo(constant("CU_EVENT_DEFAULT"));
        assertThat(CudaDriver.EVENT_DISABLE_TIMING).isEqualTo(constant("CU_EVENT_DISABLE_TIMING"));
        assertThat(CudaDriver.JIT_ERROR_LOG_BUFFER).isEqualTo(constant("CU_JIT_ERROR_LOG_BUFFER"));
        assertThat(CudaDriver.JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
                .isEqualTo(constant("CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES"));
    }
}
