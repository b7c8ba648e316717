package dev.chorus.node;

import dev.chorus.gossip.identity.KeyFile;
import dev.chorus.gossip.identity.PrivateKey;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Builds data directories for node tests: an identity key, the bundled WDBC data and a node.yaml. */
public final class NodeTestDirs {

    private NodeTestDirs() {}

    /** Copies the bundled WDBC CSV (569 rows) to {@code dir/wdbc.csv}. */
    public static Path wdbc(Path dir) {
        Path file = dir.resolve("wdbc.csv");
        try (InputStream in = NodeTestDirs.class.getResourceAsStream("/dev/chorus/node/data/wdbc.csv")) {
            Files.createDirectories(dir);
            if (!Files.exists(file)) {
                Files.copy(in, file);
            }
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A data directory {@code dir} with {@code identity.key}, {@code wdbc.csv} and a {@code node.yaml}
     * that listens on loopback, serves the API on a free port, trains on the reference backend and
     * checkpoints often. {@code extra} is appended to the YAML (top-level keys only).
     */
    public static Path create(Path dir, String extra) {
        try {
            Files.createDirectories(dir);
            wdbc(dir);
            Path key = dir.resolve("identity.key");
            if (!Files.exists(key)) {
                KeyFile.create(key, PrivateKey.generate());
            }
            Path yaml = dir.resolve("node.yaml");
            Files.writeString(yaml, baseYaml() + extra);
            return yaml;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static String baseYaml() {
        return """
                consortium: test-consortium
                network:
                  listen: [/ip4/127.0.0.1/tcp/0]
                data:
                  path: wdbc.csv
                  label: Diagnosis
                  positive: M
                  drop: [ID]
                model:
                  backend: reference
                  threads: 1
                training:
                  batch: 16
                  eval_every_steps: 5
                  eval_every_seconds: 0
                  early_stopping: off
                checkpoint:
                  every_steps: 10
                  every_seconds: 0
                  keep: 3
                api:
                  port: 0
                """;
    }

    /**
     * Writes a CSV of 40 rows, features {@code a}, {@code b} and {@code chapter}, label {@code y} (0 or 1), in
     * which {@code chapter} is empty in every row of class 0: dropping the rows with a missing value leaves the
     * 20 rows of class 1 alone.
     */
    public static Path missingForOneClass(Path file) {
        StringBuilder text = new StringBuilder("a,b,chapter,y\n");
        for (int i = 0; i < 40; i++) {
            int y = i % 2;
            text.append(i).append(',').append(40 - i).append(',');
            text.append(y == 1 ? Integer.toString(i % 7) : "")
                    .append(',')
                    .append(y)
                    .append('\n');
        }
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            return Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
