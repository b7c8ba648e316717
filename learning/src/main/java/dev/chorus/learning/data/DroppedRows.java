package dev.chorus.learning.data;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The records a CSV load left out, and why: a missing label, or (under {@link
 * MissingValuePolicy#DROP_ROW}) a missing value in a feature column. A record can miss several
 * values, so the counts per column may add up to more than {@code rows}.
 *
 * @param rows records left out
 * @param missingLabel records without a label value
 * @param missingByColumn for each feature column with a missing value in a labelled record, how many
 *     such records, most first (file order among equal counts)
 */
public record DroppedRows(int rows, int missingLabel, Map<String, Integer> missingByColumn) {

    public DroppedRows {
        List<Map.Entry<String, Integer>> entries = new ArrayList<>(missingByColumn.entrySet());
        entries.sort(Map.Entry.<String, Integer>comparingByValue().reversed());
        Map<String, Integer> sorted = new LinkedHashMap<>();
        entries.forEach(e -> sorted.put(e.getKey(), e.getValue()));
        missingByColumn = Collections.unmodifiableMap(sorted);
    }

    /** No record left out. */
    public static final DroppedRows NONE = new DroppedRows(0, 0, Map.of());

    /** The feature columns whose missing values left out the most records (one, or several tied). */
    public List<String> worstColumns() {
        List<String> worst = new ArrayList<>();
        int most = missingByColumn.values().stream().findFirst().orElse(0);
        missingByColumn.forEach((column, count) -> {
            if (count == most) {
                worst.add(column);
            }
        });
        return worst;
    }

    /**
     * {@code 5705 rows with a missing value (column chapter: 5705, creatinine: 1350)}; the label
     * column {@code label} comes first when rows missed it; at most 10 columns are listed.
     */
    public String describe(String label) {
        List<String> causes = new ArrayList<>();
        if (missingLabel > 0) {
            causes.add("label " + Excerpt.name(label) + ": " + missingLabel);
        }
        String prefix = "column ";
        for (var entry : missingByColumn.entrySet()) {
            causes.add(prefix + Excerpt.name(entry.getKey()) + ": " + entry.getValue());
            prefix = "";
        }
        return rows + (rows == 1 ? " row" : " rows") + " with a missing value (" + Excerpt.list(causes) + ")";
    }
}
