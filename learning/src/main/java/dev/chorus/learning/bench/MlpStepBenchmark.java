package dev.chorus.learning.bench;

import dev.chorus.learning.tensor.Activation;
import dev.chorus.learning.tensor.Tensor;
import dev.chorus.learning.tensor.TensorBackend;
import dev.chorus.learning.tensor.TensorBackends;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * Training throughput of a fully connected network (default 784-256-256-10, ReLU, softmax
 * cross-entropy, SGD with momentum 0.9) written directly against the tensor SPI, as a trainer would
 * run it: parameters and gradients are views into one flat vector each. Reports samples per second
 * (median of several timed runs) and, from a separate instrumented run, the share of each op kind.
 *
 * <p>Command line: {@code MlpStepBenchmark [--backend nd4j] [--threads 2] [--batches 64,256]
 * [--layers 784,256,256,10] [--seconds 2]}.
 */
public final class MlpStepBenchmark {

    private MlpStepBenchmark() {}

    /**
     * Throughput at one batch size, and microseconds per step spent in each op kind.
     *
     * @param samplesPerCpuSecond samples per second of the calling thread's CPU time: with one
     *     thread, an estimate of the throughput on an idle machine when other processes compete for
     *     the cores (it does not count time spent in other threads)
     */
    public record Result(
            String backend,
            int threads,
            int batch,
            double samplesPerSecond,
            double samplesPerCpuSecond,
            Map<String, Double> opMicros) {

        public Result {
            opMicros = Map.copyOf(opMicros);
        }
    }

    private static final class Net {
        final TensorBackend b;
        final int[] sizes;
        final int batch;
        final Tensor flat, grads, velocity, x, y, dLogits;
        final Tensor[] w, bias, gw, gbias, act, delta;
        final Map<String, long[]> clock = new LinkedHashMap<>();
        boolean timed;

        Net(TensorBackend b, int[] sizes, int batch, Random rnd) {
            this.b = b;
            this.sizes = sizes;
            this.batch = batch;
            int layers = sizes.length - 1;
            int count = 0;
            for (int l = 0; l < layers; l++) {
                count += sizes[l] * sizes[l + 1] + sizes[l + 1];
            }
            float[] init = new float[count];
            for (int i = 0; i < count; i++) {
                init[i] = (float) (rnd.nextGaussian() * 0.05);
            }
            flat = b.fromHost(init, 1, count);
            grads = b.zeros(1, count);
            velocity = b.zeros(1, count);
            w = new Tensor[layers];
            bias = new Tensor[layers];
            gw = new Tensor[layers];
            gbias = new Tensor[layers];
            act = new Tensor[layers + 1];
            delta = new Tensor[layers];
            long at = 0;
            for (int l = 0; l < layers; l++) {
                w[l] = b.view(flat, at, sizes[l], sizes[l + 1]);
                gw[l] = b.view(grads, at, sizes[l], sizes[l + 1]);
                at += (long) sizes[l] * sizes[l + 1];
                bias[l] = b.view(flat, at, 1, sizes[l + 1]);
                gbias[l] = b.view(grads, at, 1, sizes[l + 1]);
                at += sizes[l + 1];
                act[l + 1] = b.zeros(batch, sizes[l + 1]);
                delta[l] = b.zeros(batch, sizes[l + 1]);
            }
            float[] input = new float[batch * sizes[0]];
            for (int i = 0; i < input.length; i++) {
                input[i] = rnd.nextFloat();
            }
            x = b.fromHost(input, batch, sizes[0]);
            act[0] = x;
            float[] labels = new float[batch * sizes[layers]];
            for (int i = 0; i < batch; i++) {
                labels[i * sizes[layers] + rnd.nextInt(sizes[layers])] = 1f;
            }
            y = b.fromHost(labels, batch, sizes[layers]);
            dLogits = delta[layers - 1];
        }

        private long tick() {
            return timed ? System.nanoTime() : 0;
        }

        private void tock(String op, long start) {
            if (timed) {
                long[] c = clock.computeIfAbsent(op, k -> new long[1]);
                c[0] += System.nanoTime() - start;
            }
        }

        void step() {
            int layers = sizes.length - 1;
            long t;
            for (int l = 0; l < layers; l++) {
                t = tick();
                b.gemm(false, false, 1f, act[l], w[l], 0f, act[l + 1]);
                tock("gemm forward", t);
                t = tick();
                b.addRowVector(act[l + 1], bias[l]);
                tock("addRowVector", t);
                if (l < layers - 1) {
                    t = tick();
                    b.activation(Activation.RELU, act[l + 1], act[l + 1]);
                    tock("relu", t);
                }
            }
            t = tick();
            b.softmaxCrossEntropy(act[layers], y, null, dLogits);
            tock("softmaxCrossEntropy", t);
            for (int l = layers - 1; l >= 0; l--) {
                t = tick();
                b.gemm(true, false, 1f, act[l], delta[l], 0f, gw[l]);
                tock("gemm weight grad", t);
                t = tick();
                b.sumRows(delta[l], 0f, gbias[l]);
                tock("sumRows", t);
                if (l > 0) {
                    t = tick();
                    b.gemm(false, true, 1f, delta[l], w[l], 0f, delta[l - 1]);
                    tock("gemm input grad", t);
                    t = tick();
                    b.activationBackward(Activation.RELU, act[l], delta[l - 1], delta[l - 1]);
                    tock("relu backward", t);
                }
            }
            t = tick();
            b.sgdStep(flat, grads, velocity, 0.01f, 0.9f, 0f, false);
            tock("sgdStep", t);
        }
    }

    /** Measures one batch size; {@code seconds} is the length of each of the five timed runs. */
    public static Result run(String backendName, int threads, int[] layers, int batch, double seconds) {
        if (layers.length < 2 || Arrays.stream(layers).anyMatch(s -> s <= 0)) {
            throw new IllegalArgumentException(
                    "layers need at least two positive sizes, got " + Arrays.toString(layers));
        }
        if (batch <= 0 || seconds <= 0) {
            throw new IllegalArgumentException("batch and seconds must be positive");
        }
        try (TensorBackend backend = TensorBackends.create(backendName, threads)) {
            Net net = new Net(backend, layers, batch, new Random(1));
            long warmEnd = System.nanoTime() + (long) (Math.max(1.0, seconds) * 1e9);
            int warm = 0;
            while (System.nanoTime() < warmEnd || warm < 20) {
                net.step();
                warm++;
            }
            var cpuClock = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
            double[] rates = new double[5];
            double[] cpuRates = new double[5];
            for (int r = 0; r < rates.length; r++) {
                long cpuStart = cpuClock.getCurrentThreadCpuTime();
                long start = System.nanoTime(), end = start + (long) (seconds * 1e9);
                int steps = 0;
                long now;
                do {
                    net.step();
                    steps++;
                    now = System.nanoTime();
                } while (now < end);
                rates[r] = (double) steps * batch / ((now - start) / 1e9);
                cpuRates[r] = (double) steps * batch / ((cpuClock.getCurrentThreadCpuTime() - cpuStart) / 1e9);
            }
            Arrays.sort(cpuRates);
            Arrays.sort(rates);
            net.timed = true;
            int profiled = Math.max(20, (int) (rates[2] / batch * seconds));
            for (int i = 0; i < profiled; i++) {
                net.step();
            }
            Map<String, Double> micros = new LinkedHashMap<>();
            net.clock.forEach((op, ns) -> micros.put(op, ns[0] / 1e3 / profiled));
            return new Result(backend.name(), backend.threads(), batch, rates[2], cpuRates[2], micros);
        }
    }

    public static void main(String[] args) {
        String backend = "nd4j";
        int threads = 0;
        int[] batches = {64, 256};
        int[] layers = {784, 256, 256, 10};
        double seconds = 2;
        try {
            for (int i = 0; i < args.length; i++) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("option " + args[i] + " needs a value");
                }
                String value = args[i + 1];
                switch (args[i++]) {
                    case "--backend" -> backend = value;
                    case "--threads" -> threads = Integer.parseInt(value);
                    case "--batches" ->
                        batches = Arrays.stream(value.split(","))
                                .mapToInt(Integer::parseInt)
                                .toArray();
                    case "--layers" ->
                        layers = Arrays.stream(value.split(","))
                                .mapToInt(Integer::parseInt)
                                .toArray();
                    case "--seconds" -> seconds = Double.parseDouble(value);
                    default -> throw new IllegalArgumentException("unknown option " + args[i - 1]);
                }
            }
            List<Result> results = new ArrayList<>();
            for (int batch : batches) {
                results.add(run(backend, threads, layers, batch, seconds));
            }
            for (Result r : results) {
                double total = r.opMicros().values().stream()
                        .mapToDouble(Double::doubleValue)
                        .sum();
                System.out.printf(
                        Locale.ROOT,
                        "%s, %d threads, MLP %s, batch %d: %.0f samples/s (median of 5), %.0f per CPU-second of the"
                                + " calling thread; instrumented step %.0f us:%n",
                        r.backend(),
                        r.threads(),
                        Arrays.toString(layers),
                        r.batch(),
                        r.samplesPerSecond(),
                        r.samplesPerCpuSecond(),
                        total);
                r.opMicros().entrySet().stream()
                        .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                        .forEach(e -> System.out.printf(
                                Locale.ROOT,
                                "  %-22s %9.1f us %5.1f%%%n",
                                e.getKey(),
                                e.getValue(),
                                100 * e.getValue() / total));
            }
            System.out.println("load average: "
                    + java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg"))
                            .trim());
        } catch (java.io.IOException | RuntimeException e) {
            System.err.println("MlpStepBenchmark: " + e.getMessage());
            System.exit(2);
        }
    }
}
