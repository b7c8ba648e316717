package dev.chorus.architecture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import dev.chorus.architecture.CodeSizeChecker.Offender;
import dev.chorus.architecture.CodeSizeChecker.Result;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Code size in main code, every module's {@code src/main/java}: no method or constructor longer than {@value
 * CodeSizeChecker#MAX_LINES} lines, no constructor (a record's canonical one included) with more than {@value
 * CodeSizeChecker#MAX_PARAMETERS} parameters. A long method is several steps that want names of their own; a wide
 * constructor is a missing parameter object.
 */
class ArchitectureCodeSizeTest {

    private static final Path ROOT = CodeSizeChecker.projectRoot(Path.of(""));

    @Test
    void mainCodeHasNoLongMethodOrWideConstructor() {
        List<String> modules = CodeSizeChecker.modules(ROOT);
        assertThat(modules).contains("gossip", "learning", "node", "cli");
        List<Path> sourceRoots = new ArrayList<>();
        for (String module : modules) {
            Path main = ROOT.resolve(module).resolve("src/main/java");
            assertThat(main).as(module).isDirectory();
            sourceRoots.add(main);
        }
        Result result = CodeSizeChecker.checkSourceRoots(ROOT, sourceRoots);
        assertThat(result.files()).isGreaterThan(100);
        assertThat(result.methods()).isGreaterThan(1000);
        if (!result.offenders().isEmpty()) {
            fail(result.offenders().size() + " methods or constructors over the limits (at most "
                    + CodeSizeChecker.MAX_LINES + " lines from declaration to closing brace, at most "
                    + CodeSizeChecker.MAX_PARAMETERS + " constructor parameters or record components):\n"
                    + result.offenders().stream().map(Offender::toString).collect(Collectors.joining("\n")));
        }
    }

    @Test
    void anEightyOneLineMethodAndANineParameterConstructorAreReported() {
        Path fixture = ROOT.resolve("cli/src/test/resources/architecture/CodeSizeFixture.java");
        assertThat(fixture).isRegularFile();
        Result result = CodeSizeChecker.checkFiles(ROOT, List.of(fixture));
        String path = "cli/src/test/resources/architecture/CodeSizeFixture.java";
        // The 80-line method (javadoc and annotations above it not counted), the 8-parameter constructor and the
        // 8-component record pass; the compact canonical constructor of the 9-component record is not counted twice.
        assertThat(result.offenders())
                .map(Offender::toString)
                .containsExactly(
                        path + ":9 CodeSizeFixture.<init> (9 parameters)",
                        path + ":100 CodeSizeFixture.hashCode (81 lines)",
                        path + ":182 CodeSizeFixture.Wide.<init> (canonical constructor, 9 parameters)");
        assertThat(result.methods()).isEqualTo(6);
    }
}
