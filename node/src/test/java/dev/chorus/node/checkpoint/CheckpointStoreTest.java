package dev.chorus.node.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.learning.optim.OptimizerSnapshot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real files in a temporary directory: round trip, pruning, corruption, atomicity. */
class CheckpointStoreTest {

    @TempDir
    Path dir;

    private static Checkpoint checkpoint(long version, int params, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        float[] p = new float[params];
        float[] m = new float[params];
        float[] v = new float[params];
        for (int i = 0; i < params; i++) {
            p[i] = (float) r.nextGaussian();
            m[i] = (float) r.nextGaussian();
            v[i] = (float) r.nextDouble();
        }
        return new Checkpoint(
                version,
                version * 2,
                1_700_000_000_000L + version,
                "mlp:8",
                "adam:lr=0.001",
                p,
                new OptimizerSnapshot(version, new float[][] {m, v}),
                Map.of("accuracy", 0.93, "trainLoss", 0.25, "auc", Double.NaN));
    }

    @Test
    void roundTripKeepsEveryField() throws IOException {
        CheckpointStore store = new CheckpointStore(dir, 3);
        Checkpoint c = checkpoint(17, 10_003, 1);
        Path file = store.save(c);
        assertThat(file.getFileName().toString()).isEqualTo("ckpt-00000000000000000017.bin");
        Checkpoint back = store.loadLatest().orElseThrow();
        assertThat(back.version()).isEqualTo(17);
        assertThat(back.steps()).isEqualTo(34);
        assertThat(back.createdMillis()).isEqualTo(c.createdMillis());
        assertThat(back.model()).isEqualTo("mlp:8");
        assertThat(back.optimizer()).isEqualTo("adam:lr=0.001");
        assertThat(back.parameters()).containsExactly(c.parameters());
        assertThat(back.optimizerState().steps()).isEqualTo(17);
        assertThat(back.optimizerState().slots()[0])
                .containsExactly(c.optimizerState().slots()[0]);
        assertThat(back.optimizerState().slots()[1])
                .containsExactly(c.optimizerState().slots()[1]);
        assertThat(back.metrics()).containsEntry("accuracy", 0.93).containsEntry("trainLoss", 0.25);
        assertThat(back.metrics().get("auc")).isNaN();
        // No temporary file is left behind.
        try (var files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .containsExactly(file.getFileName().toString());
        }
    }

    @Test
    void keepsOnlyTheNewestK() throws IOException {
        CheckpointStore store = new CheckpointStore(dir, 3);
        for (long v = 1; v <= 6; v++) {
            store.save(checkpoint(v * 10, 50, v));
        }
        assertThat(store.files())
                .extracting(p -> p.getFileName().toString())
                .containsExactly(
                        "ckpt-00000000000000000060.bin",
                        "ckpt-00000000000000000050.bin",
                        "ckpt-00000000000000000040.bin");
        assertThat(store.loadLatest().orElseThrow().version()).isEqualTo(60);
    }

    @Test
    void corruptNewestIsSkippedForThePreviousOne() throws IOException {
        CheckpointStore store = new CheckpointStore(dir, 5);
        store.save(checkpoint(10, 64, 1));
        Path newest = store.save(checkpoint(20, 64, 2));
        byte[] bytes = Files.readAllBytes(newest);
        bytes[bytes.length / 2] ^= 0x01; // one flipped bit in the parameters
        Files.write(newest, bytes);
        assertThat(store.loadLatest().orElseThrow().version()).isEqualTo(10);
        assertThat(newest).exists(); // kept for inspection, not deleted
    }

    @Test
    void truncatedAndEmptyFilesAreSkipped() throws IOException {
        CheckpointStore store = new CheckpointStore(dir, 5);
        store.save(checkpoint(5, 64, 1));
        Path b = store.save(checkpoint(6, 64, 2));
        byte[] bytes = Files.readAllBytes(b);
        Files.write(b, java.util.Arrays.copyOf(bytes, bytes.length - 100));
        Files.write(store.fileFor(7), new byte[0]);
        assertThat(store.loadLatest().orElseThrow().version()).isEqualTo(5);
    }

    @Test
    void renamedFileIsNotTrusted() throws IOException {
        CheckpointStore store = new CheckpointStore(dir, 5);
        store.save(checkpoint(3, 8, 1));
        Path a = store.save(checkpoint(4, 8, 1));
        Files.move(a, store.fileFor(99));
        assertThat(store.loadLatest().orElseThrow().version()).isEqualTo(3);
    }

    @Test
    void emptyOrMissingDirectoryHasNoCheckpoint() {
        assertThat(new CheckpointStore(dir.resolve("absent"), 2).loadLatest()).isEmpty();
        assertThat(new CheckpointStore(dir, 2).loadLatest()).isEmpty();
    }

    @Test
    void statelessOptimizerRoundTrips() throws IOException {
        CheckpointStore store = new CheckpointStore(dir, 2);
        Checkpoint c = new Checkpoint(
                1,
                1,
                0,
                "logreg",
                "sgd:lr=0.1",
                new float[] {1f, 2f},
                new OptimizerSnapshot(1, new float[0][]),
                Map.of());
        store.save(c);
        Checkpoint back = store.loadLatest().orElseThrow();
        assertThat(back.optimizerState().slots()).isEmpty();
        assertThat(back.parameters()).containsExactly(1f, 2f);
    }

    @Test
    void nonFiniteWeightsAreSkippedLikeACorruptFile() throws IOException {
        CheckpointStore store = new CheckpointStore(dir, 5);
        store.save(checkpoint(1, 16, 1));
        Checkpoint nan = checkpoint(2, 16, 2);
        nan.parameters()[5] = Float.NaN;
        Path nanFile = store.save(nan);
        Checkpoint inf = checkpoint(3, 16, 3);
        inf.optimizerState().slots()[1][0] = Float.POSITIVE_INFINITY;
        Path infFile = store.save(inf);

        CheckpointStore.Restore r = store.restoreLatest(CheckpointStore.Validation.NONE);

        assertThat(r.checkpoint().orElseThrow().version()).isEqualTo(1);
        assertThat(r.skipped()).extracting(CheckpointStore.Skipped::file).containsExactly(infFile, nanFile);
        assertThat(r.skipped().get(0).reason()).isEqualTo("non-finite optimizer state value (Infinity at index 0)");
        assertThat(r.skipped().get(1).reason()).isEqualTo("non-finite weight (NaN at index 5)");
        assertThat(store.loadLatest().orElseThrow().version()).isEqualTo(1);
        assertThat(store.files()).hasSize(3); // skipped, never deleted
    }

    @Test
    void checkpointTheValidationRefusesIsSkippedWithItsReason() throws IOException {
        CheckpointStore store = new CheckpointStore(dir, 5);
        store.save(checkpoint(1, 8, 1));
        Path wide = store.save(checkpoint(2, 12, 2));

        CheckpointStore.Restore r =
                store.restoreLatest(c -> c.parameters().length == 8 ? null : c.parameters().length + " parameters");

        assertThat(r.checkpoint().orElseThrow().version()).isEqualTo(1);
        assertThat(r.skipped()).containsExactly(new CheckpointStore.Skipped(wide, "12 parameters"));
    }

    @Test
    void noUsableCheckpointListsEveryFileAndWhy() throws IOException {
        CheckpointStore store = new CheckpointStore(dir, 5);
        Path a = store.save(checkpoint(1, 8, 1));
        Path b = store.save(checkpoint(2, 8, 2));
        byte[] bytes = Files.readAllBytes(b);
        bytes[bytes.length / 2] ^= 1;
        Files.write(b, bytes);
        Files.write(a, new byte[0]);

        CheckpointStore.Restore r = store.restoreLatest(CheckpointStore.Validation.NONE);

        assertThat(r.checkpoint()).isEmpty();
        assertThat(r.skipped())
                .containsExactly(
                        new CheckpointStore.Skipped(b, "checksum mismatch"),
                        new CheckpointStore.Skipped(a, "truncated (0 bytes)"));
        assertThat(new CheckpointStore(dir.resolve("absent"), 2).restoreLatest(CheckpointStore.Validation.NONE))
                .isEqualTo(new CheckpointStore.Restore(java.util.Optional.empty(), java.util.List.of()));
    }

    @Test
    void checkpointsAndTheirDirectoryAreOwnerOnlyFromCreation() throws IOException {
        Path ckpts = dir.resolve("data").resolve("checkpoints");
        CheckpointStore store = new CheckpointStore(ckpts, 2);
        Path file = store.save(checkpoint(1, 8, 1));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
                .isEqualTo("rw-------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(ckpts)))
                .isEqualTo("rwx------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(ckpts.getParent())))
                .isEqualTo("rwx------");
        store.save(checkpoint(2, 8, 2));
        Path aside = store.rollBackTo(1).orElseThrow();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(aside)))
                .isEqualTo("rwx------");
    }
}
