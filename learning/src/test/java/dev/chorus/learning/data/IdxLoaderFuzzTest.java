package dev.chorus.learning.data;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/**
 * Coverage-guided fuzz test of the IDX loader on a pair of files (plain or gzipped): {@link DataException} is its only
 * rejection, what it accepts holds exactly {@code count * height * width} pixels (computed without overflow), and the
 * accepted data written back by {@link IdxLoader#writeImages}/{@link IdxLoader#writeLabels} reads equal. Regression
 * inputs: {@code IdxLoaderFuzzTestInputs/}.
 */
class IdxLoaderFuzzTest {

    @TempDir
    static Path dir;

    @FuzzTest
    void read(FuzzedDataProvider in) throws IOException {
        Path labels = dir.resolve("labels");
        Path images = dir.resolve("images");
        Files.write(labels, in.consumeBytes(in.consumeInt(0, 64)));
        Files.write(images, in.consumeRemainingAsBytes());
        IdxData data;
        try {
            data = IdxLoader.read(images, labels);
        } catch (DataException rejected) {
            return;
        }
        BigInteger pixels = BigInteger.valueOf(data.count())
                .multiply(BigInteger.valueOf(data.height()))
                .multiply(BigInteger.valueOf(data.width()));
        assertThat(pixels).isEqualTo(BigInteger.valueOf(data.pixels().length));
        ByteArrayOutputStream imageOut = new ByteArrayOutputStream();
        ByteArrayOutputStream labelOut = new ByteArrayOutputStream();
        IdxLoader.writeImages(data, imageOut);
        IdxLoader.writeLabels(data, labelOut);
        Files.write(images, imageOut.toByteArray());
        Files.write(labels, labelOut.toByteArray());
        IdxData again = IdxLoader.read(images, labels);
        assertThat(again.pixels()).isEqualTo(data.pixels());
        assertThat(again.labels()).isEqualTo(data.labels());
        assertThat(again.height()).isEqualTo(data.height());
        assertThat(again.width()).isEqualTo(data.width());
    }
}
