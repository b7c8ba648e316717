package dev.chorus.learning.partition;

import dev.chorus.learning.data.CsvLoader;
import dev.chorus.learning.data.CsvTable;
import dev.chorus.learning.data.DataException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * A natural split: one shard per distinct value of a column, such as the site ({@code instit}),
 * the study ({@code study}) or the year of sampling ({@code sample.yr}), as in the natural
 * partitions of FLamby (Ogier du Terrail et al. 2022, arXiv:2210.04620).
 *
 * <p>Distinct values are ordered (numerically when all are numbers). With more values than nodes,
 * they are grouped into {@code nodes} contiguous runs of as equal a number of values as possible
 * (value {@code v} of {@code V} goes to node {@code floor(v * nodes / V)}), so a split by year gives
 * each node a range of years. Fewer values than nodes, or a missing value in the column, is an
 * error. The seed is not used.
 */
public final class ColumnPartitioner implements Partitioner {

    private final String column;

    public ColumnPartitioner(String column) {
        if (column == null || column.isBlank()) {
            throw new DataException("partition column name is empty");
        }
        this.column = column;
    }

    public String column() {
        return column;
    }

    @Override
    public Partition partition(PartitionSource source, int nodes, long seed) {
        ShardBuilder.checkNodes(source.rows(), nodes);
        List<String> values = source.column(column);
        int missing = 0;
        for (String value : values) {
            if (CsvTable.isMissing(value)) {
                missing++;
            }
        }
        if (missing > 0) {
            throw new DataException("column " + column + " has " + missing
                    + " rows with a missing value; cannot assign them to a node by it");
        }
        List<String> distinct = new ArrayList<>(new LinkedHashSet<>(values));
        distinct.sort(CsvLoader.valueOrder(distinct));
        int count = distinct.size();
        if (count < nodes) {
            throw new DataException("column " + column + " has " + count + " distinct values ("
                    + String.join(", ", distinct) + "), fewer than the " + nodes + " nodes");
        }
        Map<String, Integer> nodeOf = new HashMap<>();
        for (int v = 0; v < count; v++) {
            nodeOf.put(distinct.get(v), (int) ((long) v * nodes / count));
        }
        ShardBuilder shards = new ShardBuilder(nodes, values.size() / nodes + 1);
        for (int row = 0; row < values.size(); row++) {
            shards.add(nodeOf.get(values.get(row)), row);
        }
        return shards.build(method(), seed);
    }

    @Override
    public String method() {
        return "column:" + column;
    }
}
