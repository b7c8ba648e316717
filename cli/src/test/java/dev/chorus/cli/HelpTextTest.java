package dev.chorus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * The command lists of {@code --help} show each command's first description line: it must be a whole sentence. Every
 * command's help, rendered at 80 columns, keeps each value (a URL, an address, a number with a dot) on one line, and
 * no description breaks a sentence by hand: picocli reflows the text, so a hard break lands mid-line on a wider
 * terminal.
 */
class HelpTextTest {

    /** A word holding a digit, '/', ':' or '=' with something on both sides: a value that must never be cut. */
    private static final Pattern VALUE = Pattern.compile("[^\\s]*[0-9/:=,][^\\s]*");

    @Test
    void everyHelpAt80ColumnsKeepsEveryValueOnOneLine() {
        List<CommandLine> all = new ArrayList<>();
        collect(Main.commandLine(), all);
        for (CommandLine cl : all) {
            cl.setUsageHelpWidth(80);
            String help = cl.getUsageMessage(CommandLine.Help.Ansi.OFF);
            String name = cl.getCommandSpec().qualifiedName();
            List<String> lines = help.lines().toList();
            assertThat(lines)
                    .as(name)
                    .allSatisfy(l -> assertThat(l.length()).as(name + ": " + l).isLessThanOrEqualTo(80));
            // The synopsis on one line, where nothing is wrapped: each of its words must be whole at 80 columns too.
            cl.setUsageHelpWidth(2000);
            List<String> texts = new ArrayList<>(texts(cl.getCommandSpec()));
            texts.add(cl.getHelp().synopsis(0));
            cl.setUsageHelpWidth(80);
            for (String text : texts) {
                Matcher m = VALUE.matcher(text);
                while (m.find()) {
                    String word = m.group();
                    if (word.length() > 40) {
                        continue; // longer than the description column: nothing can keep it whole
                    }
                    assertThat(help)
                            .as(name + ": '" + word + "' is cut across lines in%n" + help)
                            .contains(word);
                }
            }
        }
    }

    /** The descriptions of the command, its options and parameters, each default value in place. */
    private static List<String> texts(CommandSpec spec) {
        List<String> out = new ArrayList<>(List.of(spec.usageMessage().description()));
        for (OptionSpec o : spec.options()) {
            if (o.hidden()) {
                continue;
            }
            for (String d : o.description()) {
                out.add(d.replace("${DEFAULT-VALUE}", String.valueOf(o.defaultValueString())));
            }
        }
        for (PositionalParamSpec p : spec.positionalParameters()) {
            out.addAll(List.of(p.description()));
        }
        return out;
    }

    /** testnet --help lists the everyday options first, then the research ones under a heading of their own. */
    @Test
    void testnetHelpListsResearchOptionsInASectionOfTheirOwn() {
        CommandLine testnet = Main.commandLine().getSubcommands().get("testnet");
        String help = testnet.getUsageMessage(CommandLine.Help.Ansi.OFF);
        int heading = help.indexOf("Research options (");
        assertThat(heading).as(help).isPositive();
        List<String> names = testnet.getCommandSpec().options().stream()
                .filter(o -> !o.hidden())
                .map(OptionSpec::longestName)
                .toList();
        assertThat(names).containsAll(TestnetCommand.RESEARCH_OPTIONS);
        // Where each option's own row starts, below the synopsis.
        Map<String, Integer> rows = new HashMap<>();
        Matcher row =
                Pattern.compile("(?m)^ {2}(?:-\\w, | {4})(--[\\w\\[\\]-]+)").matcher(help);
        while (row.find()) {
            // "--[no-]name" for a negatable option, "--name[=VALUE]" for one whose value may be left out.
            rows.putIfAbsent(row.group(1).replace("[no-]", "").replaceAll("\\[$", ""), row.start());
        }
        for (String name : names) {
            assertThat(rows).as(name + " in%n" + help).containsKey(name);
            if (TestnetCommand.RESEARCH_OPTIONS.contains(name)) {
                assertThat(rows.get(name))
                        .as(name + " after the heading in%n" + help)
                        .isGreaterThan(heading);
            } else {
                assertThat(rows.get(name))
                        .as(name + " before the heading in%n" + help)
                        .isLessThan(heading);
            }
        }
    }

    /** The options' and commands' own strings: every piece but the last ends a sentence or a list's lead-in. */
    @Test
    void noDescriptionBreaksASentenceByHand() {
        List<CommandLine> all = new ArrayList<>();
        collect(Main.commandLine(), all);
        List<String> breaks = new ArrayList<>();
        for (CommandLine cl : all) {
            CommandSpec spec = cl.getCommandSpec();
            check(spec.qualifiedName(), spec.usageMessage().description(), breaks);
            for (OptionSpec o : spec.options()) {
                check(spec.qualifiedName() + " " + o.longestName(), o.description(), breaks);
            }
            for (PositionalParamSpec p : spec.positionalParameters()) {
                check(spec.qualifiedName() + " " + p.paramLabel(), p.description(), breaks);
            }
        }
        assertThat(breaks).as("hard line breaks inside sentences").isEmpty();
    }

    private static void check(String where, String[] description, List<String> breaks) {
        for (int i = 0; i < description.length; i++) {
            String[] pieces = description[i].split("%n", -1);
            for (int j = 0; j < pieces.length; j++) {
                boolean last = i == description.length - 1 && j == pieces.length - 1;
                String piece = pieces[j].strip();
                if (!last && !piece.isEmpty() && !piece.matches("(?s).*[.:;!?)]$")) {
                    breaks.add(where + ": after '" + piece + "'");
                }
            }
        }
    }

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
