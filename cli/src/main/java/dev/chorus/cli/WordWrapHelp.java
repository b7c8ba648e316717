package dev.chorus.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Help;
import picocli.CommandLine.Help.Ansi;
import picocli.CommandLine.Help.Ansi.Text;
import picocli.CommandLine.Help.ColorScheme;
import picocli.CommandLine.Help.TextTable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * Help text that wraps lines at spaces only. Picocli wraps at every line-break opportunity of {@link
 * java.text.BreakIterator}, which includes the dots and slashes inside values: a default such as {@code
 * http://127.0.0.1:7465} or a multiaddr came out cut in two, and a reader copying it got half a value. A word longer
 * than its column is still cut, as nothing else would fit it.
 */
final class WordWrapHelp extends Help {

    /** Installs this help on {@code cl} and every sub-command it has now. */
    static void install(CommandLine cl) {
        cl.setHelpFactory(WordWrapHelp::new);
    }

    private WordWrapHelp(CommandSpec spec, ColorScheme colorScheme) {
        super(spec, colorScheme);
    }

    @Override
    public Layout createDefaultLayout(
            List<OptionSpec> options, List<PositionalParamSpec> positionals, ColorScheme scheme) {
        Layout layout = super.createDefaultLayout(options, positionals, scheme);
        return new Layout(
                scheme,
                SpaceWrappingTable.of(layout.textTable(), scheme),
                layout.optionRenderer(),
                layout.parameterRenderer());
    }

    @Override
    public TextTable createTextTable(Map<?, ?> map) {
        return SpaceWrappingTable.of(super.createTextTable(map), colorScheme());
    }

    @Override
    public String description(Object... params) {
        String[] lines = commandSpec().usageMessage().description();
        StringBuilder sb = new StringBuilder();
        if (lines == null || lines.length == 0) {
            return "";
        }
        TextTable table = new SpaceWrappingTable(
                colorScheme(), new Column(commandSpec().usageMessage().width(), 0, Column.Overflow.WRAP));
        table.indentWrappedLines = 0;
        for (String line : lines) {
            for (String part : String.format(line, params).split("\\R", -1)) {
                table.addRowValues(colorScheme().ansi().new Text(part, colorScheme()));
            }
        }
        return table.toString(sb).toString();
    }

    /** The synopsis, wrapped at spaces only: as picocli lays it out, after the command name and its heading. */
    @Override
    protected String insertSynopsisCommandName(int headingLength, Text optionText) {
        String name = commandSpec().qualifiedName();
        int first = name.length() + headingLength;
        TextTable table = new SpaceWrappingTable(
                colorScheme(),
                new Column(first, 0, Column.Overflow.SPAN),
                new Column(commandSpec().usageMessage().width() - first, 0, Column.Overflow.WRAP));
        table.indentWrappedLines = 1;
        // Padding as wide as the heading ("Usage: "), which the caller prints, cut off again below.
        Text padding = Ansi.OFF.new Text("X".repeat(headingLength), colorScheme());
        table.addRowValues(padding.concat(colorScheme().commandText(name)), optionText);
        return table.toString().substring(headingLength);
    }

    /** A text table whose last column wraps at spaces only. */
    static final class SpaceWrappingTable extends TextTable {

        private final ColorScheme scheme;

        private SpaceWrappingTable(ColorScheme scheme, Column... columns) {
            super(scheme, columns);
            this.scheme = scheme;
        }

        static SpaceWrappingTable of(TextTable like, ColorScheme scheme) {
            SpaceWrappingTable t = new SpaceWrappingTable(scheme, like.columns());
            t.indentWrappedLines = like.indentWrappedLines;
            t.setAdjustLineBreaksForWideCJKCharacters(like.isAdjustLineBreaksForWideCJKCharacters());
            return t;
        }

        @Override
        public Cell putValue(int row, int col, Text value) {
            Column column = columns()[col];
            int first = column.width - column.indent;
            if (col != columns().length - 1
                    || value == null
                    || value.plainString().length() <= first) {
                return super.putValue(row, col, value);
            }
            List<Text> pieces = pieces(value, first, first - indentWrappedLines);
            Cell cell = super.putValue(row, col, pieces.getFirst());
            Text indent = scheme.ansi().new Text(" ".repeat(indentWrappedLines), scheme);
            for (int i = 1; i < pieces.size(); i++) {
                int next = cell.row + 1;
                if (next >= rowCount()) {
                    addEmptyRow();
                }
                cell = super.putValue(next, col, indent.concat(pieces.get(i)));
            }
            return cell;
        }

        /** {@code value} cut at spaces into lines of at most {@code first}, then {@code rest}, characters. */
        private static List<Text> pieces(Text value, int first, int rest) {
            String plain = value.plainString();
            List<Text> out = new ArrayList<>();
            int start = 0;
            int limit = first;
            while (plain.length() - start > limit) {
                int cut = plain.lastIndexOf(' ', start + limit);
                if (cut <= start) {
                    // One word longer than the line: it gets a line of its own, and the table cuts it.
                    cut = plain.indexOf(' ', start + limit);
                    if (cut < 0) {
                        break;
                    }
                }
                out.add(value.substring(start, cut));
                start = cut + 1;
                while (start < plain.length() && plain.charAt(start) == ' ') {
                    start++;
                }
                limit = rest;
            }
            if (start < plain.length()) {
                out.add(value.substring(start));
            }
            return out;
        }
    }
}
