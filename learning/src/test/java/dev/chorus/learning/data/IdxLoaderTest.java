package dev.chorus.learning.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IdxLoaderTest {

    @TempDir
    Path dir;

    /** An IDX file: magic, sizes, then data; gzipped if asked. */
    private static byte[] idx(int magic, int[] sizes, byte[] data, boolean gzip) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(gzip ? new GZIPOutputStream(bytes) : bytes)) {
            out.writeInt(magic);
            for (int size : sizes) {
                out.writeInt(size);
            }
            out.write(data);
        }
        return bytes.toByteArray();
    }

    private Path file(String name, byte[] content) throws IOException {
        Path path = dir.resolve(name);
        Files.write(path, content);
        return path;
    }

    private static final byte[] PIXELS = {0, (byte) 255, 51, 102, 1, 2, 3, 4, 5, 6, 7, (byte) 128};
    private static final byte[] LABELS = {3, 0};

    @Test
    void readsGzippedAndPlainFiles() throws IOException {
        for (boolean gzip : new boolean[] {true, false}) {
            String suffix = gzip ? ".gz" : "";
            Path images = file("a-images-idx3-ubyte" + suffix, idx(0x803, new int[] {2, 2, 3}, PIXELS, gzip));
            Path labels = file("a-labels-idx1-ubyte" + suffix, idx(0x801, new int[] {2}, LABELS, gzip));
            IdxData data = IdxLoader.read(images, labels);
            assertThat(data.count()).isEqualTo(2);
            assertThat(data.height()).isEqualTo(2);
            assertThat(data.width()).isEqualTo(3);
            assertThat(data.labelArray()).containsExactly(3, 0);
            Dataset d = data.toDataset(4);
            assertThat(d.rows()).isEqualTo(2);
            assertThat(d.cols()).isEqualTo(6);
            assertThat(d.features()[0]).isEqualTo(0f);
            assertThat(d.features()[1]).isEqualTo(1f);
            assertThat(d.features()[2]).isEqualTo(0.2f);
            assertThat(d.features()[11]).isEqualTo(128 / 255f);
            assertThat(d.classNames()).containsExactly("0", "1", "2", "3");
            assertThat(data.imagesSha256()).isEqualTo(Sha256.hex(Files.readAllBytes(images)));
            Files.delete(images);
            Files.delete(labels);
        }
    }

    @Test
    void readsADirectoryByPrefix() throws IOException {
        file("train-images-idx3-ubyte.gz", idx(0x803, new int[] {2, 2, 3}, PIXELS, true));
        file("train-labels-idx1-ubyte", idx(0x801, new int[] {2}, LABELS, false));
        assertThat(IdxLoader.readDirectory(dir, "train").count()).isEqualTo(2);
        assertThatThrownBy(() -> IdxLoader.readDirectory(dir, "t10k"))
                .isInstanceOf(DataException.class)
                .hasMessageEndingWith("neither t10k-images-idx3-ubyte.gz nor t10k-images-idx3-ubyte found");
    }

    @Test
    void wrongMagicNumbersAreNamed() throws IOException {
        Path images = file("i", idx(0x803, new int[] {2, 2, 3}, PIXELS, false));
        Path labels = file("l", idx(0x801, new int[] {2}, LABELS, false));
        assertThatThrownBy(() -> IdxLoader.read(labels, images))
                .isInstanceOf(DataException.class)
                .hasMessageEndingWith(
                        "l: magic number 0x00000801, expected 0x00000803 (unsigned-byte images with 3 dimensions)");
        Path text = file("t", "hello,world\n".getBytes());
        assertThatThrownBy(() -> IdxLoader.read(images, text)).hasMessageContaining("magic number 0x68656c6c");
    }

    @Test
    void countMismatchTruncationAndTrailingBytesAreErrors() throws IOException {
        Path images = file("i", idx(0x803, new int[] {2, 2, 3}, PIXELS, true));
        Path threeLabels = file("l3", idx(0x801, new int[] {3}, new byte[] {1, 2, 3}, true));
        assertThatThrownBy(() -> IdxLoader.read(images, threeLabels))
                .hasMessageContaining("holds 2 images but")
                .hasMessageEndingWith("l3 holds 3 labels");
        Path truncated = file("tr", idx(0x803, new int[] {2, 2, 3}, Arrays.copyOf(PIXELS, 10), false));
        Path labels = file("l", idx(0x801, new int[] {2}, LABELS, false));
        assertThatThrownBy(() -> IdxLoader.read(truncated, labels))
                .hasMessageEndingWith("tr: header announces 12 data bytes, file holds 10 (truncated)");
        Path trailing = file("tl", idx(0x801, new int[] {2}, new byte[] {1, 2, 3}, false));
        assertThatThrownBy(() -> IdxLoader.read(images, trailing)).hasMessageContaining("(trailing bytes)");
        Path corrupt = file("c", Arrays.copyOf(idx(0x801, new int[] {2}, LABELS, true), 12));
        assertThatThrownBy(() -> IdxLoader.read(images, corrupt)).isInstanceOf(DataException.class);
        assertThatThrownBy(() -> IdxLoader.read(images, dir.resolve("missing")))
                .hasMessageEndingWith("missing: file not found");
    }

    /**
     * 16 images of 2^30 x 2^30 pixels: the product is 2^64, which wraps to 0 in a long, the size of the empty body
     * that follows. The header must be refused as too large, not read as 16 images without pixels.
     */
    @Test
    void dimensionsWhoseProductOverflowsAreTooLarge() throws IOException {
        Path images = file("big", idx(0x803, new int[] {16, 1 << 30, 1 << 30}, new byte[0], false));
        Path labels = file("l16", idx(0x801, new int[] {16}, new byte[16], false));
        assertThatThrownBy(() -> IdxLoader.read(images, labels))
                .isInstanceOf(DataException.class)
                .hasMessageContaining("16 images of 1073741824x1073741824 is too large to load");
    }

    @Test
    void labelsAboveTheClassCountAreRejected() throws IOException {
        Path images = file("i", idx(0x803, new int[] {2, 2, 3}, PIXELS, false));
        Path labels = file("l", idx(0x801, new int[] {2}, LABELS, false));
        assertThatThrownBy(() -> IdxLoader.load(images, labels, 3))
                .hasMessageEndingWith("l: label 3 of item 0 is not below the 3 classes");
    }

    @Test
    void writtenShardsReadBack() throws IOException {
        Path images = file("i", idx(0x803, new int[] {2, 2, 3}, PIXELS, false));
        Path labels = file("l", idx(0x801, new int[] {2}, LABELS, false));
        IdxData data = IdxLoader.read(images, labels).subset(new int[] {1});
        Path outImages = dir.resolve("s-images-idx3-ubyte.gz");
        Path outLabels = dir.resolve("s-labels-idx1-ubyte.gz");
        AtomicFile.write(outImages, out -> IdxLoader.writeImages(data, out));
        AtomicFile.write(outLabels, out -> IdxLoader.writeLabels(data, out));
        IdxData back = IdxLoader.readDirectory(dir, "s");
        assertThat(back.pixels()).containsExactly(Arrays.copyOfRange(PIXELS, 6, 12));
        assertThat(back.labels()).containsExactly(0);
    }

    @Test
    void fashionMnistTestSet() {
        Path fashion = TestDatasets.fashionMnist();
        IdxData data = IdxLoader.readDirectory(fashion, "t10k");
        assertThat(data.count()).isEqualTo(10_000);
        assertThat(data.height()).isEqualTo(28);
        assertThat(data.width()).isEqualTo(28);
        assertThat(data.imagesSha256()).isEqualTo("cc1d090a38ace84dfa1aa66e3ada7c336ef481a96936906477e6dd344da56eaa");
        Dataset d = data.toDataset(10);
        assertThat(d.cols()).isEqualTo(784);
        // Fashion-MNIST's test set holds 1000 images of each class.
        assertThat(d.labelCounts()).containsOnly(1000);
        float min = Float.MAX_VALUE;
        float max = -Float.MAX_VALUE;
        for (float v : d.features()) {
            min = Math.min(min, v);
            max = Math.max(max, v);
        }
        assertThat(min).isEqualTo(0f);
        assertThat(max).isEqualTo(1f);
    }
}
