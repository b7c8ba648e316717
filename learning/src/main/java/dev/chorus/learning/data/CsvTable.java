package dev.chorus.learning.data;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A CSV file as text: the header, the data records with their line numbers and original text, and
 * the line terminator the file uses. Parsing follows RFC 4180: fields separated by commas, records
 * by CRLF (LF and a lone CR are accepted too), a field in double quotes may hold commas, line breaks
 * and doubled quotes ({@code ""} for one {@code "}). A header line is required; every record must
 * have as many fields as the header. Blank lines are skipped. A UTF-8 byte order mark is ignored.
 * Every column needs a name, except last columns whose names and fields are all empty (a trailing
 * comma on every line): they are left out of {@code header} and of each record's fields.
 *
 * <p>Keeping the original text lets a partitioner write shard files whose header and lines are
 * byte for byte those of the source.
 *
 * @param source the file read (used in messages and manifests)
 * @param sha256 SHA-256 of the file's bytes
 * @param header column names, stripped of surrounding spaces
 * @param headerText the header line as it appears in the file, without terminator or byte order mark
 * @param lineSeparator the file's first line terminator, {@code "\n"} if it has none
 * @param records the data records, in file order
 */
public record CsvTable(
        Path source,
        String sha256,
        List<String> header,
        String headerText,
        String lineSeparator,
        List<CsvRecord> records) {

    public CsvTable {
        header = List.copyOf(header);
        records = List.copyOf(records);
    }

    /** Reads and parses {@code file} as UTF-8. */
    public static CsvTable read(Path file) {
        byte[] bytes;
        try {
            if (Files.isDirectory(file)) {
                throw new DataException(file + ": is a directory, expected a CSV file");
            }
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new DataException(file + ": file not found");
        } catch (IOException e) {
            throw new DataException(file + ": cannot read: " + e.getMessage(), e);
        }
        String text;
        try {
            text = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new DataException(file + ": not UTF-8 text (is it a CSV file?)", e);
        }
        return parse(text, file, Sha256.hex(bytes));
    }

    /** Parses CSV {@code text}; {@code source} only names it in messages. */
    public static CsvTable parse(String text, Path source) {
        return parse(text, source, Sha256.hex(text.getBytes(StandardCharsets.UTF_8)));
    }

    private static CsvTable parse(String text, Path source, String sha256) {
        return new Parser(text, source).parse(sha256);
    }

    /** The index of column {@code name}; {@code role} says what it was asked for, in the message. */
    public int columnIndex(String name, String role) {
        int index = header.indexOf(name);
        if (index < 0) {
            throw DataException.unknownColumn(
                    source + ": unknown " + role + " column " + Excerpt.quote(name) + "; available columns: "
                            + Excerpt.names(header),
                    role);
        }
        return index;
    }

    /** Whether a field value stands for a missing value: empty or {@code NA} (as R writes it). */
    public static boolean isMissing(String value) {
        return value.isEmpty() || value.equals("NA");
    }

    private static final class Parser {
        private final String text;
        private final Path source;
        private final int length;
        private int pos;
        private int line = 1;

        Parser(String text, Path source) {
            this.text = text;
            this.source = source;
            this.length = text.length();
            if (length > 0 && text.charAt(0) == '\uFEFF') {
                pos = 1;
            }
        }

        CsvTable parse(String sha256) {
            List<String> header = null;
            int headerLine = 0;
            String headerText = null;
            String separator = null;
            List<CsvRecord> records = new ArrayList<>();
            List<String> fields = new ArrayList<>();
            while (pos < length) {
                if (atLineEnd()) {
                    consumeLineEnd();
                    continue;
                }
                int start = pos;
                int startLine = line;
                fields.clear();
                readRecord(fields);
                String recordText = text.substring(start, pos);
                String terminator = consumeLineEnd();
                if (separator == null && !terminator.isEmpty()) {
                    separator = terminator;
                }
                if (header == null) {
                    headerLine = startLine;
                    header = header(fields, startLine);
                    headerText = recordText;
                } else {
                    if (fields.size() != header.size()) {
                        throw new DataException(source + " line " + startLine + ": " + fields.size()
                                + " fields, expected " + header.size() + " as in the header");
                    }
                    records.add(new CsvRecord(startLine, fields, recordText));
                }
            }
            if (header == null) {
                throw new DataException(source + ": empty file, expected a header line");
            }
            while (header.size() > 1 && header.getLast().isEmpty() && lastFieldsEmpty(records)) {
                // A trailing comma on every line (as some spreadsheet exports write) makes a last
                // column with no name and no values: it holds nothing, so it is left out.
                header = header.subList(0, header.size() - 1);
                records = records.stream()
                        .map(r -> new CsvRecord(
                                r.line(), r.fields().subList(0, r.fields().size() - 1), r.text()))
                        .toList();
            }
            int unnamed = header.indexOf("");
            if (unnamed >= 0) {
                String where =
                        source + " line " + headerLine + ": column " + (unnamed + 1) + " of the header has no name";
                if (unnamed == header.size() - 1) {
                    throw new DataException(where + " (a trailing comma?) but holds values; name it or remove them");
                }
                throw new DataException(where + "; name it");
            }
            return new CsvTable(source, sha256, header, headerText, separator == null ? "\n" : separator, records);
        }

        private List<String> header(List<String> fields, int headerLine) {
            List<String> names = new ArrayList<>(fields.size());
            Set<String> seen = new HashSet<>();
            for (String field : fields) {
                String name = field.strip();
                if (!name.isEmpty() && !seen.add(name)) {
                    throw new DataException(source + " line " + headerLine + ": duplicate column " + Excerpt.quote(name)
                            + " in header");
                }
                names.add(name);
            }
            return names;
        }

        private static boolean lastFieldsEmpty(List<CsvRecord> records) {
            for (CsvRecord record : records) {
                if (!record.value(record.fields().size() - 1).isEmpty()) {
                    return false;
                }
            }
            return true;
        }

        private void readRecord(List<String> fields) {
            while (true) {
                fields.add(pos < length && text.charAt(pos) == '"' ? quotedField(fields.size() + 1) : plainField());
                if (pos < length && text.charAt(pos) == ',') {
                    pos++;
                    continue;
                }
                return;
            }
        }

        private String plainField() {
            int start = pos;
            while (pos < length) {
                char c = text.charAt(pos);
                if (c == ',' || c == '\n' || c == '\r') {
                    break;
                }
                pos++;
            }
            return text.substring(start, pos);
        }

        private String quotedField(int fieldNumber) {
            int openLine = line;
            pos++;
            StringBuilder sb = new StringBuilder();
            while (true) {
                if (pos >= length) {
                    throw new DataException(source + " line " + openLine + ": field " + fieldNumber
                            + " opens a quote that is never closed");
                }
                char c = text.charAt(pos++);
                if (c == '"') {
                    if (pos < length && text.charAt(pos) == '"') {
                        sb.append('"');
                        pos++;
                        continue;
                    }
                    break;
                }
                if (c == '\n' || (c == '\r' && (pos >= length || text.charAt(pos) != '\n'))) {
                    line++;
                }
                sb.append(c);
            }
            if (pos < length && !atLineEnd() && text.charAt(pos) != ',') {
                throw new DataException(source + " line " + line + ": unexpected character '" + text.charAt(pos)
                        + "' after the closing quote of field " + fieldNumber);
            }
            return sb.toString();
        }

        private boolean atLineEnd() {
            char c = text.charAt(pos);
            return c == '\n' || c == '\r';
        }

        private String consumeLineEnd() {
            if (pos >= length) {
                return "";
            }
            char c = text.charAt(pos);
            if (c == '\r' && pos + 1 < length && text.charAt(pos + 1) == '\n') {
                pos += 2;
                line++;
                return "\r\n";
            }
            pos++;
            line++;
            return c == '\r' ? "\r" : "\n";
        }
    }
}
