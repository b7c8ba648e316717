package dev.chorus.gossip.core;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/** Loops over streams without recursion, however many reads complete synchronously. */
public final class Streams {
    private Streams() {}

    /**
     * Reads chunks until EOF, passing each to {@code onChunk} and waiting for the stage it returns
     * before reading on. Completes with the number of bytes read, or fails with the first error.
     */
    public static CompletableFuture<Long> forEachChunk(Stream stream, Function<byte[], CompletionStage<?>> onChunk) {
        CompletableFuture<Long> done = new CompletableFuture<>();
        new ChunkLoop(stream, onChunk, done).run();
        return done;
    }

    /**
     * Runs {@code step} again each time its stage completes with true, until it completes with false
     * (the result completes) or fails. Synchronous completions do not grow the stack.
     */
    public static CompletableFuture<Void> loop(java.util.function.Supplier<CompletionStage<Boolean>> step) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        new StepLoop(step, done).run();
        return done;
    }

    private static final class StepLoop implements Runnable {
        private final java.util.function.Supplier<CompletionStage<Boolean>> step;
        private final CompletableFuture<Void> done;
        private boolean running;
        private boolean again;

        StepLoop(java.util.function.Supplier<CompletionStage<Boolean>> step, CompletableFuture<Void> done) {
            this.step = step;
            this.done = done;
        }

        @Override
        public void run() {
            synchronized (this) {
                if (running) {
                    again = true;
                    return;
                }
                running = true;
            }
            while (true) {
                CompletionStage<Boolean> stage;
                try {
                    stage = step.get();
                } catch (RuntimeException e) {
                    done.completeExceptionally(e);
                    return;
                }
                stage.whenComplete((more, err) -> {
                    if (err != null) {
                        done.completeExceptionally(err);
                    } else if (!more) {
                        done.complete(null);
                    } else {
                        run();
                    }
                });
                synchronized (this) {
                    if (!again) {
                        running = false;
                        return;
                    }
                    again = false;
                }
            }
        }
    }

    private static final class ChunkLoop implements Runnable {
        private final Stream stream;
        private final Function<byte[], CompletionStage<?>> onChunk;
        private final CompletableFuture<Long> done;
        private long total;
        private boolean running;
        private boolean again;

        ChunkLoop(Stream stream, Function<byte[], CompletionStage<?>> onChunk, CompletableFuture<Long> done) {
            this.stream = stream;
            this.onChunk = onChunk;
            this.done = done;
        }

        /** Trampoline: a synchronous completion sets {@code again} instead of recursing. */
        @Override
        public void run() {
            synchronized (this) {
                if (running) {
                    again = true;
                    return;
                }
                running = true;
            }
            while (true) {
                step();
                synchronized (this) {
                    if (!again) {
                        running = false;
                        return;
                    }
                    again = false;
                }
            }
        }

        private void step() {
            stream.read().whenComplete((chunk, err) -> {
                if (err != null) {
                    done.completeExceptionally(err);
                } else if (chunk.length == 0) {
                    done.complete(total);
                } else {
                    total += chunk.length;
                    CompletionStage<?> next;
                    try {
                        next = onChunk.apply(chunk);
                    } catch (RuntimeException e) {
                        done.completeExceptionally(e);
                        return;
                    }
                    next.whenComplete((v, e2) -> {
                        if (e2 != null) {
                            done.completeExceptionally(e2);
                        } else {
                            run();
                        }
                    });
                }
            });
        }
    }
}
