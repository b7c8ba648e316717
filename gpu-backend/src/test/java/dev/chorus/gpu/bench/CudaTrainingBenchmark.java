package dev.chorus.gpu.bench;

import dev.chorus.gpu.CudaBackend;
import dev.chorus.learning.data.Dataset;
import dev.chorus.learning.json.JsonWriter;
import dev.chorus.learning.model.ModelSpec;
import dev.chorus.learning.model.Sequential;
import dev.chorus.learning.optim.Optimizer;
import dev.chorus.learning.optim.OptimizerSpec;
import dev.chorus.learning.tensor.TensorBackend;
import dev.chorus.learning.tensor.TensorBackends;
import dev.chorus.learning.train.ProgressReporter;
import dev.chorus.learning.train.Trainer;
import dev.chorus.learning.train.TrainingConfig;
import dev.chorus.learning.train.TrainingStats;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

/**
 * Training throughput of Chorus on a tensor backend (CUDA by default), through the same {@link
 * Trainer} that a node runs: per model and batch size, warm-up steps, then whole epochs over a
 * synthetic Fashion-MNIST-shaped data set (784 features uniform in [0, 1), 10 uniform classes,
 * 60000 rows) until at least {@code --seconds} have passed. Prints one JSON object per
 * configuration; {@code gpu-backend/bench/torch_cuda_mlp.py} is the PyTorch side.
 *
 * <pre>
 * --backend cuda  --models mlp:256,256;mlp:4096,4096  --batch 256,4096
 * --optimizer sgd:lr=0.01,momentum=0.9  --seconds 3  --warmup 20  --rows 60000  --seed 42
 * </pre>
 */
public final class CudaTrainingBenchmark {

    private CudaTrainingBenchmark() {}

    public static void main(String[] argv) {
        BenchArgs args = new BenchArgs(argv);
        String backendName = args.get("backend", "cuda");
        List<String> models = args.list("models", "mlp:256,256;mlp:4096,4096", ";");
        List<String> batches = args.list("batch", "256,4096", ",");
        String optimizer = args.get("optimizer", "sgd:lr=0.01,momentum=0.9");
        double seconds = args.number("seconds", 3);
        int warmup = (int) args.number("warmup", 20);
        int rows = (int) args.number("rows", 60000);
        long seed = (long) args.number("seed", 42);
        Dataset data = synthetic(rows, 784, 10, seed);
        try (TensorBackend backend = TensorBackends.create(backendName, 0)) {
            String device = backend instanceof CudaBackend c ? c.deviceDescription() : backend.name();
            for (String model : models) {
                for (String b : batches) {
                    int batch = Integer.parseInt(b);
                    Result r = run(backend, data, model, optimizer, batch, warmup, seconds, seed);
                    StringBuilder sb = new StringBuilder();
                    JsonWriter w = JsonWriter.compact(sb);
                    w.beginObject();
                    w.member("impl", "chorus");
                    w.member("backend", backend.name());
                    w.member("device", device);
                    w.member("model", model);
                    w.member("optimizer", optimizer);
                    w.member("batch", batch);
                    w.member("samples", r.samples);
                    w.member("seconds", r.seconds);
                    w.member("samplesPerSecond", r.samples / r.seconds);
                    w.member("loss", r.loss);
                    w.endObject();
                    w.finish();
                    System.out.println(sb);
                    System.out.flush();
                }
            }
        }
    }

    private record Result(long samples, double seconds, double loss) {}

    private static Result run(
            TensorBackend backend,
            Dataset data,
            String model,
            String optimizer,
            int batch,
            int warmup,
            double seconds,
            long seed) {
        try (Sequential net = ModelSpec.parse(model).build(backend, data.cols(), data.classes(), seed);
                Optimizer opt = OptimizerSpec.parse(optimizer).create()) {
            int warmRows = (int) Math.min(data.rows(), (long) warmup * batch);
            new Trainer(net, opt, new TrainingConfig(1, batch, seed))
                    .progress(ProgressReporter.quiet())
                    .train(data.subset(IntStream.range(0, warmRows).toArray()));
            long samples = 0;
            double elapsed = 0, loss = Double.NaN;
            long epoch = 0;
            while (elapsed < seconds) {
                TrainingStats s = new Trainer(net, opt, new TrainingConfig(1, batch, seed + (++epoch)))
                        .progress(ProgressReporter.quiet())
                        .train(data);
                samples += s.samples();
                elapsed += s.seconds();
                loss = s.finalLoss();
            }
            return new Result(samples, elapsed, loss);
        }
    }

    static Dataset synthetic(int rows, int cols, int classes, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        float[] x = new float[rows * cols];
        for (int i = 0; i < x.length; i++) {
            x[i] = (float) random.nextDouble();
        }
        int[] y = new int[rows];
        for (int i = 0; i < rows; i++) {
            y[i] = random.nextInt(classes);
        }
        List<String> features = new ArrayList<>();
        for (int j = 0; j < cols; j++) {
            features.add("x" + j);
        }
        List<String> names = new ArrayList<>();
        for (int c = 0; c < classes; c++) {
            names.add("class" + c);
        }
        return new Dataset(x, rows, cols, y, classes, features, names);
    }
}
