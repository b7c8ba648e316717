package dev.chorus.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;

/** Runs a long-lived CLI command in-process on its own thread; its output lines can be read as they come. */
final class LiveCli {
    final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    final StringWriter err = new StringWriter();
    final CompletableFuture<Integer> exit = new CompletableFuture<>();

    static LiveCli start(String... args) {
        LiveCli live = new LiveCli();
        CommandLine cl = Main.commandLine();
        cl.setOut(new PrintWriter(new LineWriter(live.lines), true));
        cl.setErr(new PrintWriter(live.err, true));
        Thread.ofPlatform().daemon().name("live-cli").start(() -> {
            try {
                live.exit.complete(cl.execute(args));
            } catch (Throwable t) {
                live.exit.completeExceptionally(t);
            }
        });
        return live;
    }

    /** The next output line, or an assertion error after {@code seconds}. */
    String next(long seconds) throws InterruptedException {
        String line = lines.poll(seconds, TimeUnit.SECONDS);
        if (line == null) {
            throw new AssertionError("no output line within " + seconds + " s; stderr: " + err);
        }
        return line;
    }

    /** Splits what is written into lines. */
    static final class LineWriter extends Writer {
        private final BlockingQueue<String> lines;
        private final StringBuilder partial = new StringBuilder();

        LineWriter(BlockingQueue<String> lines) {
            this.lines = lines;
        }

        @Override
        public synchronized void write(char[] buf, int off, int len) {
            for (int i = off; i < off + len; i++) {
                char c = buf[i];
                if (c == '\n') {
                    lines.add(partial.toString());
                    partial.setLength(0);
                } else if (c != '\r') {
                    partial.append(c);
                }
            }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    }
}
