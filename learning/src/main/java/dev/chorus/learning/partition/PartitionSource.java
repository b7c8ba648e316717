package dev.chorus.learning.partition;

import dev.chorus.learning.data.CsvData;
import dev.chorus.learning.data.DataException;
import dev.chorus.learning.data.Dataset;
import dev.chorus.learning.data.IdxData;
import java.util.List;
import java.util.stream.IntStream;

/** The rows to partition: their labels and, for a CSV source, the values of any column. */
public interface PartitionSource {

    int rows();

    /** The class of each row, in {@code [0, classes())}. */
    int[] labels();

    List<String> classNames();

    default int classes() {
        return classNames().size();
    }

    /** The value of column {@code name} in each row; only CSV sources have columns. */
    default List<String> column(String name) {
        throw new DataException("partitioning by column " + name + " needs a CSV source");
    }

    /** The rows of a loaded CSV file, with its columns. */
    static PartitionSource of(CsvData data) {
        Dataset dataset = data.dataset();
        return new PartitionSource() {
            @Override
            public int rows() {
                return dataset.rows();
            }

            @Override
            public int[] labels() {
                return dataset.labels();
            }

            @Override
            public List<String> classNames() {
                return dataset.classNames();
            }

            @Override
            public List<String> column(String name) {
                return data.column(name);
            }
        };
    }

    /** The rows of a data set without columns. */
    static PartitionSource of(Dataset dataset) {
        return of(dataset.labels(), dataset.classNames());
    }

    /** The images of an IDX pair, with classes {@code "0"} ... {@code classes - 1}. */
    static PartitionSource of(IdxData data, int classes) {
        int[] labels = data.labelArray();
        for (int i = 0; i < labels.length; i++) {
            if (labels[i] >= classes) {
                throw new DataException(data.labelsSource() + ": label " + labels[i] + " of item " + i
                        + " is not below the " + classes + " classes");
            }
        }
        return of(
                labels, IntStream.range(0, classes).mapToObj(Integer::toString).toList());
    }

    /** Rows given by their labels only. */
    static PartitionSource of(int[] labels, List<String> classNames) {
        List<String> names = List.copyOf(classNames);
        return new PartitionSource() {
            @Override
            public int rows() {
                return labels.length;
            }

            @Override
            public int[] labels() {
                return labels;
            }

            @Override
            public List<String> classNames() {
                return names;
            }
        };
    }
}
