package dev.chorus.gpu.bench;

import dev.chorus.gpu.CudaBackend;
import dev.chorus.gpu.GemmPrecision;
import dev.chorus.learning.json.JsonWriter;
import dev.chorus.learning.tensor.Tensor;
import dev.chorus.learning.tensor.TensorBackends;
import java.util.List;
import java.util.SplittableRandom;

/**
 * GEMM throughput of the CUDA backend: {@code C = A B} (row-major, no transposes) for each size
 * {@code MxNxK} and precision, timed over repetitions between two stream synchronizations after
 * warm-up, reported in TFLOP/s ({@code 2 M N K} per product). {@code
 * gpu-backend/bench/torch_gemm.py} times PyTorch's matmul on the same sizes.
 *
 * <pre>
 * --sizes 4096x4096x4096,4096x4096x784,256x4096x4096,8192x8192x8192  --precisions fp32,tf32,bf16
 * --seconds 1
 * </pre>
 */
public final class CudaGemmBenchmark {

    private CudaGemmBenchmark() {}

    public static void main(String[] argv) {
        BenchArgs args = new BenchArgs(argv);
        List<String> sizes = args.list("sizes", "4096x4096x4096,4096x4096x784,256x4096x4096,8192x8192x8192", ",");
        List<String> precisions = args.list("precisions", "fp32,tf32,bf16", ",");
        double seconds = args.number("seconds", 1);
        try (CudaBackend b = (CudaBackend) TensorBackends.create("cuda", 0)) {
            for (String size : sizes) {
                String[] mnk = size.split("x");
                int m = Integer.parseInt(mnk[0]), n = Integer.parseInt(mnk[1]), k = Integer.parseInt(mnk[2]);
                SplittableRandom random = new SplittableRandom(m * 31L + n * 17L + k);
                try (Tensor a = b.fromHost(randoms(random, m * k), m, k);
                        Tensor bb = b.fromHost(randoms(random, k * n), k, n);
                        Tensor c = b.zeros(m, n)) {
                    for (String p : precisions) {
                        b.setGemmPrecision(GemmPrecision.parse(p));
                        for (int i = 0; i < 3; i++) {
                            b.gemm(false, false, 1f, a, bb, 0f, c);
                        }
                        b.synchronize();
                        // Size the timed run from one timed product, then time it.
                        long t0 = System.nanoTime();
                        b.gemm(false, false, 1f, a, bb, 0f, c);
                        b.synchronize();
                        double one = (System.nanoTime() - t0) / 1e9;
                        int reps = (int) Math.max(5, Math.min(10_000, seconds / Math.max(one, 1e-6)));
                        long start = System.nanoTime();
                        for (int i = 0; i < reps; i++) {
                            b.gemm(false, false, 1f, a, bb, 0f, c);
                        }
                        b.synchronize();
                        double elapsed = (System.nanoTime() - start) / 1e9;
                        double tflops = 2.0 * m * n * k * reps / elapsed / 1e12;
                        StringBuilder sb = new StringBuilder();
                        JsonWriter w = JsonWriter.compact(sb);
                        w.beginObject();
                        w.member("impl", "chorus");
                        w.member("device", b.deviceDescription());
                        w.member("m", m);
                        w.member("n", n);
                        w.member("k", k);
                        w.member("precision", p);
                        w.member("reps", reps);
                        w.member("seconds", elapsed);
                        w.member("tflops", tflops);
                        w.endObject();
                        w.finish();
                        System.out.println(sb);
                        System.out.flush();
                    }
                }
            }
        }
    }

    private static float[] randoms(SplittableRandom random, int n) {
        float[] out = new float[n];
        for (int i = 0; i < n; i++) {
            out[i] = (float) (random.nextDouble() * 2 - 1);
        }
        return out;
    }
}
