package dev.chorus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The command lists of {@code --help} show each command's first description line: it must be a whole sentence. */
class HelpTextTest {

    @Test
    void everyCommandsFirstDescriptionLineIsASentence() {
        List<CommandLine> all = new ArrayList<>();
        collect(Main.commandLine(), all);
        assertThat(all).hasSizeGreaterThan(20);
        for (CommandLine cl : all) {
            String[] description = cl.getCommandSpec().usageMessage().description();
            String name = cl.getCommandSpec().qualifiedName();
            assertThat(description).as(name).isNotEmpty();
            assertThat(description[0].strip()).as(name).endsWith(".");
        }
    }

    private static void collect(CommandLine cl, List<CommandLine> out) {
        out.add(cl);
        for (CommandLine sub : cl.getSubcommands().values()) {
            if (!out.contains(sub)) {
                collect(sub, out);
            }
        }
    }
}
