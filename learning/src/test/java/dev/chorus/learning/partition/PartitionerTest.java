package dev.chorus.learning.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.learning.data.CsvData;
import dev.chorus.learning.data.CsvLoader;
import dev.chorus.learning.data.CsvSchema;
import dev.chorus.learning.data.CsvTable;
import dev.chorus.learning.data.DataException;
import dev.chorus.learning.data.MissingValuePolicy;
import dev.chorus.learning.data.TestDatasets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class PartitionerTest {

    @Test
    void parsesMethodStrings() {
        assertThat(Partitioner.parse("iid")).isInstanceOf(IidPartitioner.class);
        assertThat(Partitioner.parse(" dirichlet:0.5 "))
                .isInstanceOfSatisfying(
                        DirichletPartitioner.class, p -> assertThat(p.alpha()).isEqualTo(0.5));
        assertThat(Partitioner.parse("size:2"))
                .isInstanceOfSatisfying(
                        SizeSkewPartitioner.class, p -> assertThat(p.alpha()).isEqualTo(2));
        assertThat(Partitioner.parse("column:sample.yr"))
                .isInstanceOfSatisfying(
                        ColumnPartitioner.class, p -> assertThat(p.column()).isEqualTo("sample.yr"));
        assertThat(Partitioner.parse("dirichlet:1.0").method()).isEqualTo("dirichlet:1");
        assertThat(Partitioner.parse("dirichlet:1e2").method()).isEqualTo("dirichlet:100");
        assertThat(Partitioner.parse("size:0.10").method()).isEqualTo("size:0.1");
    }

    @Test
    void badMethodStringsAreClearErrors() {
        assertThatThrownBy(() -> Partitioner.parse(""))
                .isInstanceOf(DataException.class)
                .hasMessage("empty partition method; expected iid, dirichlet:ALPHA, column:NAME or size:ALPHA");
        assertThatThrownBy(() -> Partitioner.parse("label-skew"))
                .hasMessage(
                        "unknown partition method \"label-skew\"; expected iid, dirichlet:ALPHA, column:NAME or size:ALPHA");
        assertThatThrownBy(() -> Partitioner.parse("dirichlet"))
                .hasMessage("partition method dirichlet needs a concentration, e.g. dirichlet:0.5");
        assertThatThrownBy(() -> Partitioner.parse("dirichlet:abc"))
                .hasMessage("dirichlet concentration must be a positive number, got \"abc\" in \"dirichlet:abc\"");
        assertThatThrownBy(() -> Partitioner.parse("size:-1")).hasMessageContaining("must be a positive number");
        assertThatThrownBy(() -> Partitioner.parse("size:0")).hasMessageContaining("must be a positive number");
        assertThatThrownBy(() -> Partitioner.parse("dirichlet:NaN")).hasMessageContaining("must be a positive number");
        assertThatThrownBy(() -> Partitioner.parse("dirichlet:Infinity"))
                .hasMessageContaining("must be a positive number");
        assertThatThrownBy(() -> Partitioner.parse("iid:3"))
                .hasMessage("partition method iid takes no parameter, got \"iid:3\"");
        assertThatThrownBy(() -> Partitioner.parse("column:"))
                .hasMessage("partition method column needs a column name, e.g. column:study");
    }

    @Test
    void tooFewRowsOrNodesAreErrors() {
        PartitionSource three = PartitionSource.of(new int[] {0, 1, 0}, List.of("a", "b"));
        assertThatThrownBy(() -> new DirichletPartitioner(0.5).partition(three, 4, 1))
                .hasMessage("cannot give each of 4 nodes a row: the data has 3 rows");
        assertThatThrownBy(() -> new IidPartitioner().partition(three, 0, 1))
                .hasMessage("number of nodes must be at least 1, got 0");
        assertThatThrownBy(() -> new ColumnPartitioner("site").partition(three, 2, 1))
                .hasMessage("partitioning by column site needs a CSV source");
    }

    @Test
    void nwtcoByStudy() {
        CsvData data = CsvLoader.load(
                TestDatasets.csv("nwtco.csv"),
                CsvSchema.builder("rel").drop("seqno", "edrel").build());
        Partition partition = Partitioner.parse("column:study").partition(PartitionSource.of(data), 2, 1);
        assertThat(partition.sizes()).containsExactly(1857, 2171);
        int[][] counts = partition.labelCounts(data.dataset().labels(), 2);
        assertThat(counts[0]).containsExactly(1575, 282);
        assertThat(counts[1]).containsExactly(1882, 289);
        assertThatThrownBy(() -> Partitioner.parse("column:study").partition(PartitionSource.of(data), 3, 1))
                .isInstanceOf(DataException.class)
                .hasMessage("column study has 2 distinct values (3, 4), fewer than the 3 nodes");
        assertThatThrownBy(() -> Partitioner.parse("column:hospital").partition(PartitionSource.of(data), 2, 1))
                .hasMessageContaining("unknown partition column \"hospital\"; available columns: seqno, instit");
    }

    @Test
    void flchainYearsGroupedIntoContiguousRanges() {
        CsvData data = CsvLoader.load(
                TestDatasets.csv("flchain.csv"),
                CsvSchema.builder("death")
                        .drop("futime", "chapter")
                        .missing(MissingValuePolicy.IMPUTE)
                        .build());
        Partition partition = new ColumnPartitioner("sample.yr").partition(PartitionSource.of(data), 4, 1);
        List<String> years = data.column("sample.yr");
        // Nine years into four nodes: 1995-1997, 1998-1999, 2000-2001, 2002-2003.
        List<Set<String>> expected = List.of(
                Set.of("1995", "1996", "1997"), Set.of("1998", "1999"), Set.of("2000", "2001"), Set.of("2002", "2003"));
        for (int node = 0; node < 4; node++) {
            Set<String> seen = new TreeSet<>();
            Arrays.stream(partition.shard(node)).forEach(row -> seen.add(years.get(row)));
            assertThat(seen).isEqualTo(expected.get(node));
        }
        assertThat(partition.sizes()).containsExactly(1275 + 3491 + 1381, 687 + 350, 245 + 175, 48 + 222);
    }

    @Test
    void missingValuesInThePartitionColumnAreAnError() {
        CsvData data = CsvLoader.load(
                CsvTable.parse("y,x,site\n1,1,a\n0,2,\n1,3,b\n0,4,b\n", Path.of("inline.csv")),
                CsvSchema.builder("y").drop("site").build());
        assertThatThrownBy(() -> new ColumnPartitioner("site").partition(PartitionSource.of(data), 2, 1))
                .hasMessage("column site has 1 rows with a missing value; cannot assign them to a node by it");
    }
}
