package dev.chorus.cli;

import dev.chorus.learning.data.CsvData;
import dev.chorus.learning.data.DataException;
import dev.chorus.learning.data.IdxData;
import dev.chorus.learning.data.MissingValuePolicy;
import dev.chorus.learning.partition.Partition;
import dev.chorus.learning.partition.PartitionSource;
import dev.chorus.learning.partition.Partitioner;
import dev.chorus.learning.partition.ShardManifest;
import dev.chorus.learning.partition.ShardWriter;
import dev.chorus.node.setup.OutputDirectory;
import dev.chorus.node.setup.UserError;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code chorus partition}: splits one data set into per-node shards, to simulate a consortium. */
@Command(
        name = "partition",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Splits one data set into N node shards (one file per node plus manifest.json), to simulate N institutions.",
            "Methods: iid; dirichlet:ALPHA (label skew, smaller is more skewed); column:NAME (one group of values per"
                    + " node, e.g. column:sample.yr); size:ALPHA (shard sizes skewed, labels IID).",
            "CSV shards keep the input's header and lines verbatim; rows with missing feature values are kept."
        })
final class PartitionCommand implements Callable<Integer> {

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Mixin
    DataOptions dataOptions = new DataOptions();

    @Option(names = "--nodes", paramLabel = "N", required = true, description = "Number of shards (nodes).")
    int nodes;

    @Option(
            names = "--method",
            paramLabel = "METHOD",
            description = "iid, dirichlet:ALPHA, column:NAME or size:ALPHA. Default: ${DEFAULT-VALUE}.")
    String method = "iid";

    @Mixin
    SeedOptions seedOptions = new SeedOptions();

    @Option(
            names = "--out",
            paramLabel = "DIR",
            required = true,
            description = "Directory for the shards and manifest.")
    Path out;

    @Option(names = "--json", description = "Print the manifest as JSON instead of a table.")
    boolean json;

    @Override
    public Integer call() throws IOException {
        if (nodes < 1) {
            throw new UserError("--nodes must be at least 1, got " + nodes);
        }
        Partitioner partitioner;
        try {
            partitioner = Partitioner.parse(method);
        } catch (DataException e) {
            throw new UserError("--method: " + e.getMessage(), e);
        }
        OutputDirectory.check("--out", out);
        ShardManifest manifest;
        if (dataOptions.idx()) {
            IdxData idx = dataOptions.loadIdx();
            int classes = idx.inferredClasses();
            Partition partition = partitioner.partition(PartitionSource.of(idx, classes), nodes, seedOptions.seed);
            manifest = ShardWriter.writeIdx(idx, classes, partition, out);
        } else {
            // Rows are copied verbatim, missing values and all; each node reads its shard with its own
            // data.missing. Imputing here only keeps the rows with missing features in play, so a --missing
            // given by the user would be silently ignored.
            if (dataOptions.missing != null) {
                throw new UserError("--missing does not apply to partition: rows are copied as they are, and each"
                        + " node applies its own data.missing");
            }
            dataOptions.missing = MissingValuePolicy.IMPUTE;
            CsvData csv = dataOptions.loadCsv();
            Partition partition = partitioner.partition(PartitionSource.of(csv), nodes, seedOptions.seed);
            manifest = ShardWriter.writeCsv(csv, partition, out);
        }
        PrintWriter pw = spec.commandLine().getOut();
        if (json) {
            pw.println(manifest.toJson());
        } else {
            pw.printf(
                    Locale.ROOT,
                    "%s: %d rows into %d shards by %s, seed %d, in %s%n",
                    dataOptions.describe(),
                    manifest.rows(),
                    nodes,
                    manifest.method(),
                    seedOptions.seed,
                    out);
            pw.printf(Locale.ROOT, "  %-6s %8s  %s%n", "node", "rows", "label counts " + manifest.classes());
            for (ShardManifest.Shard s : manifest.shards()) {
                pw.printf(
                        Locale.ROOT,
                        "  %-6d %8d  %s%n",
                        s.node(),
                        s.rows(),
                        s.labelCounts().values());
            }
        }
        pw.flush();
        return 0;
    }
}
