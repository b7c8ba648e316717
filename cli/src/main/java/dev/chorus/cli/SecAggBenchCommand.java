package dev.chorus.cli;

import dev.chorus.cli.bench.Measurement;
import dev.chorus.cli.bench.MeasurementReport;
import dev.chorus.cli.bench.SecAggCost;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code chorus bench secagg}: what one secure-aggregation round costs a member and the relay ({@link SecAggCost}):
 * the bytes a member sends against plain averaging of the same vector, at the two shapes by default (groups
 * of 16 at a million parameters; 100 members at 100,000), and each side's compute on one core.
 */
@Command(
        name = "secagg",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Measures one secure-aggregation round: bytes a member sends against plain averaging, and the compute"
                    + " of a member and of the relay (one core each).",
            "The round runs in this process without a network; every message is encoded and decoded as on the wire."
        })
final class SecAggBenchCommand implements Callable<Integer> {

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(
            names = "--shapes",
            paramLabel = "NxD",
            split = ",",
            description = "Group sizes and vector lengths. Default: 16x1000000,100x100000.")
    List<String> shapes = List.of("16x1000000", "100x100000");

    @Option(
            names = "--repetitions",
            paramLabel = "N",
            description = "Rounds per shape (median). Default: ${DEFAULT-VALUE}.")
    int repetitions = 3;

    @Option(
            names = "--word-bits",
            paramLabel = "B",
            description = "Bits of a masked word, 32 or 16 (a node asks for 16 when its averaging.dtype is narrower"
                    + " than f32). Default: ${DEFAULT-VALUE}.")
    int wordBits = 32;

    @Option(names = "--csv", paramLabel = "FILE", description = "Also write the results as CSV.")
    Path csv;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the results as JSON.")
    Path jsonFile;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        if (wordBits != 16 && wordBits != 32) {
            throw new dev.chorus.node.setup.UserError("--word-bits: 16 or 32, not " + wordBits);
        }
        List<Measurement> results = new ArrayList<>();
        for (String shape : shapes) {
            String[] parts = shape.toLowerCase(java.util.Locale.ROOT).split("x");
            int n;
            int d;
            try {
                n = Integer.parseInt(parts[0].strip());
                d = Integer.parseInt(parts[1].strip());
            } catch (RuntimeException e) {
                throw new dev.chorus.node.setup.UserError("--shapes: expected NxD such as 16x1000000, got " + shape);
            }
            List<Double> bytes = new ArrayList<>();
            List<Double> member = new ArrayList<>();
            List<Double> relay = new ArrayList<>();
            for (int i = 0; i < repetitions + 1; i++) {
                SecAggCost.Round r = SecAggCost.run(n, d, 1000L * n + i, wordBits);
                if (i == 0) {
                    continue; // the first round warms up the JIT compilers
                }
                bytes.add(r.memberBytesVsPlain());
                member.add(r.memberSeconds());
                relay.add(r.relaySeconds());
            }
            String what = "n=" + n + " d=" + d + (wordBits == 32 ? "" : " 16-bit");
            results.add(new Measurement(what + " member bytes / plain", "ratio", bytes, "plain: 4 d bytes"));
            results.add(new Measurement(what + " member compute", "s", member, "slowest member, one core"));
            results.add(new Measurement(what + " relay compute", "s", relay, "one core"));
            out.flush();
        }
        MeasurementReport.printRows(out, results, 44);
        List<Path> files = new ArrayList<>();
        if (csv != null) {
            files.add(csv);
        }
        if (jsonFile != null) {
            files.add(jsonFile);
        }
        MeasurementReport.write(
                files,
                MeasurementReport.csv(results),
                MeasurementReport.json(
                        "secagg", w -> w.member("loadAverage", MeasurementReport.loadAverage()), results));
        return 0;
    }
}
