package dev.chorus.learning.partition;

import dev.chorus.learning.data.DataException;
import java.math.BigDecimal;

/**
 * Splits the rows of one data set among the nodes of a simulated consortium. Implementations are
 * deterministic in their seed, put every row in exactly one shard, and leave no shard empty.
 */
public interface Partitioner {

    /** The rows of each of {@code nodes} nodes. */
    Partition partition(PartitionSource source, int nodes, long seed);

    /** The method string that {@link #parse} turns back into this partitioner. */
    String method();

    /**
     * The partitioner of a method string: {@code iid}, {@code dirichlet:ALPHA}, {@code
     * column:NAME} or {@code size:ALPHA}.
     */
    static Partitioner parse(String spec) {
        String expected = "expected iid, dirichlet:ALPHA, column:NAME or size:ALPHA";
        if (spec == null || spec.isBlank()) {
            throw new DataException("empty partition method; " + expected);
        }
        String s = spec.strip();
        int colon = s.indexOf(':');
        String name = colon < 0 ? s : s.substring(0, colon);
        String argument = colon < 0 ? null : s.substring(colon + 1).strip();
        return switch (name) {
            case "iid" -> {
                if (argument != null) {
                    throw new DataException("partition method iid takes no parameter, got \"" + spec + "\"");
                }
                yield new IidPartitioner();
            }
            case "dirichlet" -> new DirichletPartitioner(concentration(name, argument, spec));
            case "size" -> new SizeSkewPartitioner(concentration(name, argument, spec));
            case "column" -> {
                if (argument == null || argument.isEmpty()) {
                    throw new DataException("partition method column needs a column name, e.g. column:study");
                }
                yield new ColumnPartitioner(argument);
            }
            default -> throw new DataException("unknown partition method \"" + spec + "\"; " + expected);
        };
    }

    private static double concentration(String name, String argument, String spec) {
        if (argument == null || argument.isEmpty()) {
            throw new DataException("partition method " + name + " needs a concentration, e.g. " + name + ":0.5");
        }
        double alpha;
        try {
            alpha = Double.parseDouble(argument);
        } catch (NumberFormatException e) {
            alpha = Double.NaN;
        }
        if (!(alpha > 0) || !Double.isFinite(alpha)) {
            throw new DataException(
                    name + " concentration must be a positive number, got \"" + argument + "\" in \"" + spec + "\"");
        }
        return alpha;
    }

    /** A concentration as written in a method string: {@code 0.5}, {@code 1}, {@code 100}. */
    static String formatConcentration(double alpha) {
        return BigDecimal.valueOf(alpha).stripTrailingZeros().toPlainString();
    }
}
