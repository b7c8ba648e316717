package dev.chorus.node;

import dev.chorus.learning.data.CsvData;
import dev.chorus.learning.data.DataException;
import dev.chorus.learning.data.Excerpt;
import dev.chorus.node.config.ConfigSchema;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * A data loader's {@link DataException.Remedy} worded in the knobs of the place that read the data: the
 * options of a command ({@code --drop}, {@code --missing impute}) or the keys of the node config ({@code
 * data.drop}, {@code data.missing}). The loader's own wording ("leave out column chapter or impute missing
 * values") names no knob; a person needs the one to type.
 */
public final class DataAdvice {

    /** The options of {@code train}, {@code partition} and the in-process {@code testnet}. */
    public static final DataAdvice OPTIONS = options("--missing impute");

    /** The keys of a node's config file, as {@code chorus node run} reads them. */
    public static final DataAdvice CONFIG = new DataAdvice(
            ConfigSchema.DATA_LABEL,
            "set " + ConfigSchema.DATA_POSITIVE,
            ConfigSchema.DATA_DROP + ": [",
            ", ",
            "]",
            ConfigSchema.DATA_MISSING + ": impute");

    private final String label;
    private final String positive;
    private final String dropPrefix;
    private final String dropSeparator;
    private final String dropSuffix;
    private final String impute;

    /**
     * @param label how to name the label column in "choose a categorical ..."
     * @param positive how to give a positive class
     * @param dropPrefix what precedes the list of dropped columns, or null when there is no way to drop one
     * @param dropSeparator what separates the dropped columns
     * @param dropSuffix what follows the list
     * @param impute how to ask for imputation, or null when there is none
     */
    private DataAdvice(
            String label, String positive, String dropPrefix, String dropSeparator, String dropSuffix, String impute) {
        this.label = label;
        this.positive = positive;
        this.dropPrefix = dropPrefix;
        this.dropSeparator = dropSeparator;
        this.dropSuffix = dropSuffix;
        this.impute = impute;
    }

    /**
     * Command-line options {@code --positive} and {@code --drop}, and {@code impute} as the way to impute
     * missing values ({@code --missing impute}, or {@code --set data.missing=impute} where the command writes
     * node configs); null when the command cannot impute.
     */
    public static DataAdvice options(String impute) {
        return new DataAdvice("label", "--positive V", "--drop ", ",", "", impute);
    }

    /**
     * The message for {@code e}: its problem, then the advice in these knobs when it carries a remedy that one
     * of them gets past; its own message otherwise. One line, as the loader's.
     *
     * @param dropped the columns the schema already leaves out, kept in the advice to drop more (a {@code
     *     --drop} or {@code data.drop} replaces the list, it does not add to it)
     */
    public String message(DataException e, List<String> dropped) {
        if (e.remedy().isEmpty()) {
            return e.getMessage();
        }
        String advice = advice(e.remedy().get(), dropped);
        return advice == null ? e.problem() : e.problem() + "; " + advice;
    }

    /** The remedy in these knobs, or null when none of them applies. */
    public String advice(DataException.Remedy remedy, List<String> dropped) {
        return switch (remedy) {
            case DataException.Remedy.CategoricalLabel c ->
                "choose a categorical " + label + ", or " + positive + " for a binary task";
            case DataException.Remedy.DropOrImpute d -> {
                List<String> ways = new ArrayList<>();
                if (dropPrefix != null) {
                    ways.add(dropPrefix + columns(dropped, d.columns()) + dropSuffix);
                }
                if (impute != null) {
                    ways.add(impute);
                }
                yield ways.isEmpty() ? null : "try " + String.join(" or ", ways);
            }
        };
    }

    /**
     * A warning, one line, when {@code csv} has feature columns that look like row identifiers (a different whole
     * number in every row: {@code ID} of WDBC, {@code seqno} of nwtco): a model that takes a record number for a
     * measurement learns nothing from it at best. Null when there are none.
     */
    public String identifierNote(CsvData csv) {
        List<String> ids = csv.identifierColumns();
        if (ids.isEmpty()) {
            return null;
        }
        String note = (ids.size() == 1
                        ? "column " + Excerpt.name(ids.getFirst()) + " looks"
                        : "columns " + Excerpt.names(ids) + " look")
                + " like a row identifier (a different whole number in each of the "
                + csv.dataset().rows()
                + " rows) and " + (ids.size() == 1 ? "is" : "are") + " used as "
                + (ids.size() == 1 ? "a feature" : "features");
        return dropPrefix == null
                ? note
                : note + "; " + dropPrefix + columns(csv.schema().drop(), ids) + dropSuffix + " leaves "
                        + (ids.size() == 1 ? "it" : "them") + " out";
    }

    /**
     * Why the CSV option {@code option} ({@code --label}, {@code --positive}, {@code --drop}, {@code --categorical}
     * or {@code --missing}) is refused for IDX data, as one line: IDX labels are class bytes 0..N-1 with no column
     * to name or value to pick, no value is missing and every pixel is a numeric feature, so the option would be
     * silently ignored.
     */
    public static String csvOnly(String option) {
        return option
                + switch (option) {
                    case "--label" -> " applies to CSV files; IDX data has its labels in the *-labels-idx1-ubyte file";
                    case "--positive" -> " applies to CSV labels; IDX data keeps its classes (the label bytes)";
                    case "--missing" -> " applies to CSV files; IDX data has no missing values (every pixel is a byte)";
                    case "--drop" ->
                        " applies to CSV files; IDX data has no columns to leave out (every pixel is a feature)";
                    case "--categorical" ->
                        " applies to CSV files; IDX data has no categorical columns (every pixel is a number)";
                    default -> throw new IllegalArgumentException("not a CSV option: " + option);
                };
    }

    /**
     * Why the IDX option {@code option} ({@code --idx-prefix}) is refused for CSV data, as one line: a CSV data set
     * is one file, with no pair of IDX files to choose among, so the option would be silently ignored.
     */
    public static String idxOnly(String option) {
        return option
                + switch (option) {
                    case "--idx-prefix" ->
                        " applies to IDX directories; CSV data is one file, with no IDX file pair to choose";
                    default -> throw new IllegalArgumentException("not an IDX option: " + option);
                };
    }

    /** The columns already dropped and the suggested ones, each once; cut when there are too many to type. */
    private String columns(List<String> dropped, List<String> suggested) {
        LinkedHashSet<String> all = new LinkedHashSet<>(dropped);
        all.addAll(suggested);
        if (all.size() > Excerpt.MAX_ITEMS) {
            return Excerpt.names(all);
        }
        return String.join(dropSeparator, all);
    }
}
