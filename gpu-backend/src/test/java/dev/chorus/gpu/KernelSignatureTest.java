package dev.chorus.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.gpu.kernel.ActivationCode;
import dev.chorus.gpu.kernel.Kernel;
import dev.chorus.gpu.kernel.KernelModule;
import dev.chorus.gpu.kernel.KernelParam;
import dev.chorus.learning.tensor.Activation;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The Java side of every launch agrees with the kernels: each {@link Kernel}'s parameter list
 * equals the {@code .entry} declaration in the shipped PTX (count, order and type), every PTX
 * entry is declared in Java, the sources define the same names, and the constants shared with
 * the CUDA C (block size, activation codes) are equal.
 */
class KernelSignatureTest {

    private static final Path SOURCES = Path.of("src/main/cuda");

    @Test
    void everyKernelMatchesItsPtxEntry() {
        for (KernelModule module : KernelModule.values()) {
            Map<String, List<String>> entries = PtxEntries.parse(new String(module.ptx(), StandardCharsets.US_ASCII));
            Set<String> declared = Arrays.stream(Kernel.values())
                    .filter(k -> k.module() == module)
                    .map(Kernel::symbol)
                    .collect(Collectors.toSet());
            assertThat(entries.keySet()).as("entries of %s", module.resource()).isEqualTo(declared);
            for (Kernel k : Kernel.values()) {
                if (k.module() != module) {
                    continue;
                }
                assertThat(entries.get(k.symbol()))
                        .as("parameters of %s", k.symbol())
                        .containsExactlyElementsOf(
                                k.params().stream().map(KernelParam::ptxType).toList());
            }
        }
    }

    @Test
    void ptxTargetsTheOldestArchitectureOfCuda13() {
        for (KernelModule module : KernelModule.values()) {
            String ptx = new String(module.ptx(), StandardCharsets.US_ASCII);
            assertThat(ptx).as(module.resource()).contains(".target sm_75").contains(".address_size 64");
        }
    }

    @Test
    void sourcesDeclareTheSameKernels() throws IOException {
        for (KernelModule module : KernelModule.values()) {
            String source = Files.readString(SOURCES.resolve(module.sourceFile()));
            Matcher m = Pattern.compile("extern \"C\" __global__ void[^\\n]*\\n?\\s*(\\w+)\\(")
                    .matcher(source);
            Set<String> inSource = new java.util.TreeSet<>();
            while (m.find()) {
                inSource.add(m.group(1));
            }
            Set<String> declared = Arrays.stream(Kernel.values())
                    .filter(k -> k.module() == module)
                    .map(Kernel::symbol)
                    .collect(Collectors.toCollection(java.util.TreeSet::new));
            assertThat(inSource).as("kernels of %s", module.sourceFile()).isEqualTo(declared);
        }
    }

    private static int define(String file, String name) throws IOException {
        Matcher m =
                Pattern.compile("#define\\s+" + name + "\\s+(\\d+)").matcher(Files.readString(SOURCES.resolve(file)));
        assertThat(m.find()).as("%s defines %s", file, name).isTrue();
        return Integer.parseInt(m.group(1));
    }

    @Test
    void sharedConstantsAgree() throws IOException {
        assertThat(Kernel.BLOCK).isEqualTo(define("chorus_common.cuh", "CHORUS_BLOCK"));
        assertThat(ActivationCode.of(Activation.IDENTITY)).isEqualTo(define("elementwise.cu", "CHORUS_IDENTITY"));
        assertThat(ActivationCode.of(Activation.RELU)).isEqualTo(define("elementwise.cu", "CHORUS_RELU"));
        assertThat(ActivationCode.of(Activation.SIGMOID)).isEqualTo(define("elementwise.cu", "CHORUS_SIGMOID"));
        assertThat(ActivationCode.of(Activation.TANH)).isEqualTo(define("elementwise.cu", "CHORUS_TANH"));
    }
}
