package dev.chorus.node.daemon;

import dev.chorus.learning.data.CsvData;
import dev.chorus.learning.data.CsvLoader;
import dev.chorus.learning.data.CsvSchema;
import dev.chorus.learning.data.Dataset;
import dev.chorus.learning.data.IdxData;
import dev.chorus.learning.data.IdxLoader;
import dev.chorus.learning.data.MissingValuePolicy;
import dev.chorus.learning.data.Standardizer;
import dev.chorus.learning.data.TrainTestSplit;
import dev.chorus.node.DataAdvice;
import dev.chorus.node.config.ConfigException;
import dev.chorus.node.config.ConfigSchema;
import dev.chorus.node.config.NodeConfig;
import java.util.ArrayList;
import java.util.List;

/**
 * The node's own data, read (never written) per the config and split into a training part and a
 * seeded, stratified validation part; CSV features are standardized with statistics of the
 * training part only.
 *
 * @param train the rows the node trains on
 * @param validation the held-out rows it evaluates on
 * @param warnings what the node should log about its data, one line each (columns that look like row identifiers)
 */
public record LocalData(Dataset train, Dataset validation, List<String> warnings) {

    public LocalData {
        warnings = List.copyOf(warnings);
    }

    /**
     * Loads and splits the data set.
     *
     * @param config the node's config: its data section, training seed, and file (for messages)
     * @throws dev.chorus.learning.data.DataException for unusable data (naming file, line, column)
     * @throws ConfigException when the data set is too small to split
     */
    public static LocalData load(NodeConfig config) {
        NodeConfig.Data data = config.data();
        long seed = config.training().seed();
        Dataset all;
        boolean scale;
        List<String> warnings = new ArrayList<>();
        if (data.idx()) {
            IdxData idx = IdxLoader.readDirectory(data.path(), data.idxPrefix());
            all = idx.toDataset(idx.inferredClasses());
            scale = false;
        } else {
            NodeConfig.Csv columns = data.csv();
            MissingValuePolicy missing =
                    columns.missing().equals("impute") ? MissingValuePolicy.IMPUTE : MissingValuePolicy.DROP_ROW;
            CsvSchema.Builder b =
                    CsvSchema.builder(columns.label()).drop(columns.drop()).missing(missing);
            if (columns.positive() != null) {
                // A member's shard of a skewed split may hold one class only; it still trains, and says so below.
                b.positiveClass(columns.positive()).part(true);
            }
            if (!columns.categorical().isEmpty()) {
                b.categorical(columns.categorical());
            }
            CsvData csv = CsvLoader.load(data.path(), b.build());
            all = csv.dataset();
            String note = DataAdvice.CONFIG.identifierNote(csv);
            if (note != null) {
                warnings.add(note);
            }
            String oneClass = oneClassNote(columns.positive(), csv.dataset());
            if (oneClass != null) {
                warnings.add(oneClass);
            }
            scale = columns.standardize();
        }
        if (all.rows() < 2) {
            throw new ConfigException(config.configFile() + ": " + ConfigSchema.DATA_PATH + ": " + data.path() + " has "
                    + all.rows() + " usable rows: too few to train and validate");
        }
        TrainTestSplit split = TrainTestSplit.stratified(all.labels(), all.classes(), data.validationFraction(), seed);
        Dataset train = all.subset(split.train());
        Dataset validation = all.subset(split.test());
        if (scale) {
            Standardizer s = Standardizer.fit(train);
            train = s.apply(train);
            validation = s.apply(validation);
        }
        return new LocalData(train, validation, warnings);
    }

    /** What to tell the operator when the rows hold one class of the binary task only; null otherwise. */
    static String oneClassNote(String positive, Dataset rows) {
        if (positive == null || rows.rows() == 0) {
            return null;
        }
        int[] counts = new int[2];
        for (int i = 0; i < rows.rows(); i++) {
            counts[rows.labels()[i]]++;
        }
        if (counts[1] == 0) {
            return "the positive class \"" + positive + "\" (data.positive) occurs in none of the " + rows.rows()
                    + " rows: this node learns it from its peers only (values are case-sensitive; check it if"
                    + " positives were expected here)";
        }
        if (counts[0] == 0) {
            return "every one of the " + rows.rows() + " rows has the positive class \"" + positive
                    + "\" (data.positive): this node learns the other class from its peers only";
        }
        return null;
    }
}
