package dev.chorus.learning.data;

import java.util.List;

/**
 * One data record of a CSV file: the physical line it starts on (the header is line 1), its
 * unquoted fields, and its original text without the line terminator (which spans several lines
 * when a quoted field holds a line break), so that it can be written out again unchanged.
 */
public record CsvRecord(int line, List<String> fields, String text) {

    public CsvRecord {
        fields = List.copyOf(fields);
    }

    /** Field {@code column}, with surrounding spaces removed. */
    public String value(int column) {
        return fields.get(column).strip();
    }
}
