package dev.chorus.learning.data;

import java.util.List;
import java.util.Optional;

/**
 * Input data that cannot be used as given: a missing file, an unknown column, a malformed line, a
 * label column with one class. The message is one line and names the file, line and column where
 * they are known, so that a command-line tool can print it as it is.
 *
 * <p>Where a change to the schema would get past the error, the exception carries it as a {@link
 * Remedy}: the message then ends with the remedy in schema terms, and a tool may word it with its own
 * option names instead, after {@link #problem()}.
 */
public final class DataException extends RuntimeException {

    private final String problem;
    private final transient Remedy remedy;
    private final String unknownColumnRole;

    public DataException(String message) {
        super(message);
        this.problem = message;
        this.remedy = null;
        this.unknownColumnRole = null;
    }

    public DataException(String message, Throwable cause) {
        super(message, cause);
        this.problem = message;
        this.remedy = null;
        this.unknownColumnRole = null;
    }

    /** An error that {@code remedy} would get past; the message is the problem, "; ", and the remedy's advice. */
    public DataException(String problem, Remedy remedy) {
        super(problem + "; " + remedy.advice());
        this.problem = problem;
        this.remedy = remedy;
        this.unknownColumnRole = null;
    }

    private DataException(String message, String unknownColumnRole) {
        super(message);
        this.problem = message;
        this.remedy = null;
        this.unknownColumnRole = unknownColumnRole;
    }

    /**
     * A column the schema names that the file does not have; {@code role} says what the schema named it for
     * ({@code label}, {@code drop}, {@code categorical}, ...), so that a tool can point at the setting that named it.
     */
    public static DataException unknownColumn(String message, String role) {
        return new DataException(message, role);
    }

    /** What the schema named an unknown column for ({@code label}, {@code drop}, ...), if that is the error. */
    public Optional<String> unknownColumnRole() {
        return Optional.ofNullable(unknownColumnRole);
    }

    /** The message without the remedy's advice. */
    public String problem() {
        return problem;
    }

    /** The schema change that would get past the error, if there is one. */
    public Optional<Remedy> remedy() {
        return Optional.ofNullable(remedy);
    }

    /** A change to the schema that would get past an error. */
    public sealed interface Remedy {

        /** The advice in schema terms, for the message. */
        String advice();

        /** The label column has too many values to be classes: choose another one, or give a positive class. */
        record CategoricalLabel() implements Remedy {
            @Override
            public String advice() {
                return "choose a categorical label column, or a positive class for a binary task";
            }
        }

        /**
         * Rows with missing values were dropped: leave out the columns that dropped the most rows, or
         * impute missing values instead.
         *
         * @param columns the feature columns to suggest leaving out
         */
        record DropOrImpute(List<String> columns) implements Remedy {
            public DropOrImpute {
                columns = List.copyOf(columns);
            }

            @Override
            public String advice() {
                return "leave out column " + Excerpt.names(columns) + " or impute missing values";
            }
        }
    }
}
