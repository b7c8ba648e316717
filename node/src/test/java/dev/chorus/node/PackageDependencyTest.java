package dev.chorus.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The arrows between the model exchange's packages point one way: announcements use the wire protocol, the wire
 * protocol implements the averaging engine's port, and the engine uses neither. Both may summarise repeated log
 * lines with the logging package's {@code PeriodicSummary}, which uses nothing of the node's. Read from the main sources without
 * their comments, so that a fully qualified name in code counts as much as an import.
 */
class PackageDependencyTest {

    private static final Path SOURCES = Path.of("src/main/java/dev/chorus/node");
    private static final Pattern NODE_TYPE = Pattern.compile("dev\\.chorus\\.node\\.([a-z]+)\\.([A-Z]\\w*)");
    private static final Pattern COMMENT = Pattern.compile("/\\*.*?\\*/|//[^\\n]*", Pattern.DOTALL);

    /** Every {@code dev.chorus.node.<package>.<Type>} that the main sources of {@code from} name, as "package.Type". */
    private static List<String> references(String from) throws IOException {
        List<String> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(SOURCES.resolve(from))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                Matcher m =
                        NODE_TYPE.matcher(COMMENT.matcher(Files.readString(f)).replaceAll(""));
                while (m.find()) {
                    if (!m.group(1).equals(from)) {
                        out.add(m.group(1) + "." + m.group(2));
                    }
                }
            }
        }
        return out;
    }

    @ParameterizedTest
    @CsvSource({
        "averaging, logging.PeriodicSummary",
        "protocol, averaging.ExchangeTransport averaging.SnapshotBuffer logging.PeriodicSummary",
        "announce, protocol.ArchitectureHash protocol.Dtype protocol.ErrorCode protocol.ExchangeException"
                + " protocol.ModelBodyEncoder"
    })
    void eachPackageNamesOnlyWhatItMayUse(String from, String allowed) throws IOException {
        Set<String> may = allowed.isBlank() ? Set.of() : Set.of(allowed.split(" "));
        assertThat(references(from)).as(from).isSubsetOf(may);
    }
}
