package dev.chorus.learning.data;

import java.io.ByteArrayInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import java.util.zip.ZipException;

/**
 * Reads and writes the IDX format of MNIST and Fashion-MNIST (LeCun et al., "The MNIST database
 * of handwritten digits"; Xiao, Rasul, Vollgraf 2017, arXiv:1708.07747): a big-endian header of a
 * magic number {@code 0x000008NN} (type 0x08 = unsigned byte, NN dimensions), one 32-bit size per
 * dimension, then the data. Images are {@code 0x00000803} (count, rows, columns), labels {@code
 * 0x00000801} (count). Files may be gzipped; compression is recognised from the content, not the
 * file name.
 */
public final class IdxLoader {

    /** Magic number of unsigned-byte data with three dimensions (images). */
    public static final int IMAGES_MAGIC = 0x00000803;

    /** Magic number of unsigned-byte data with one dimension (labels). */
    public static final int LABELS_MAGIC = 0x00000801;

    private IdxLoader() {}

    /** Reads an images file and a labels file; their counts must agree. */
    public static IdxData read(Path images, Path labels) {
        byte[] imageFile = readFile(images);
        byte[] labelFile = readFile(labels);
        ByteBuffer imageData = ByteBuffer.wrap(decompress(images, imageFile));
        ByteBuffer labelData = ByteBuffer.wrap(decompress(labels, labelFile));

        int[] imageDims = header(images, imageData, IMAGES_MAGIC, "unsigned-byte images with 3 dimensions");
        int[] labelDims = header(labels, labelData, LABELS_MAGIC, "unsigned-byte labels with 1 dimension");
        // Each size is below 2^31, so one image's pixels fit a long; the count times that may not (16 images of
        // 2^30 x 2^30 wrap to 0), so the bound is checked by division before the product is formed.
        long imagePixels = (long) imageDims[1] * imageDims[2];
        if (imageDims[0] != 0 && imagePixels > (Integer.MAX_VALUE - 16) / imageDims[0]) {
            throw new DataException(images + ": " + imageDims[0] + " images of " + imageDims[1] + "x" + imageDims[2]
                    + " is too large to load");
        }
        byte[] pixels = body(images, imageData, (int) (imageDims[0] * imagePixels));
        byte[] labelBytes = body(labels, labelData, labelDims[0]);
        if (imageDims[0] != labelDims[0]) {
            throw new DataException(
                    images + " holds " + imageDims[0] + " images but " + labels + " holds " + labelDims[0] + " labels");
        }
        return new IdxData(
                images,
                Sha256.hex(imageFile),
                labels,
                Sha256.hex(labelFile),
                imageDims[1],
                imageDims[2],
                pixels,
                labelBytes);
    }

    /**
     * Reads the pair {@code PREFIX-images-idx3-ubyte[.gz]} and {@code PREFIX-labels-idx1-ubyte[.gz]}
     * of {@code dir}, the names of the MNIST distribution; {@code prefix} is {@code train} or {@code
     * t10k} there, {@code node-000} for shards.
     */
    public static IdxData readDirectory(Path dir, String prefix) {
        return read(find(dir, prefix + "-images-idx3-ubyte"), find(dir, prefix + "-labels-idx1-ubyte"));
    }

    /** Reads a pair of files into a data set with {@code classes} classes. */
    public static Dataset load(Path images, Path labels, int classes) {
        return read(images, labels).toDataset(classes);
    }

    /** Writes {@code data}'s images as a gzipped IDX file to {@code out}. */
    public static void writeImages(IdxData data, OutputStream out) throws IOException {
        GZIPOutputStream gzip = new GZIPOutputStream(out, 1 << 16);
        DataOutputStream d = new DataOutputStream(gzip);
        d.writeInt(IMAGES_MAGIC);
        d.writeInt(data.count());
        d.writeInt(data.height());
        d.writeInt(data.width());
        d.write(data.pixels());
        d.flush();
        gzip.finish();
    }

    /** Writes {@code data}'s labels as a gzipped IDX file to {@code out}. */
    public static void writeLabels(IdxData data, OutputStream out) throws IOException {
        GZIPOutputStream gzip = new GZIPOutputStream(out, 1 << 16);
        DataOutputStream d = new DataOutputStream(gzip);
        d.writeInt(LABELS_MAGIC);
        d.writeInt(data.count());
        d.write(data.labels());
        d.flush();
        gzip.finish();
    }

    private static Path find(Path dir, String base) {
        if (!Files.isDirectory(dir)) {
            throw new DataException(dir + ": directory not found");
        }
        for (String name : new String[] {base + ".gz", base}) {
            Path file = dir.resolve(name);
            if (Files.isRegularFile(file)) {
                return file;
            }
        }
        throw new DataException(dir + ": neither " + base + ".gz nor " + base + " found");
    }

    private static byte[] readFile(Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new DataException(file + ": file not found");
        } catch (IOException e) {
            throw new DataException(file + ": cannot read: " + e.getMessage(), e);
        }
    }

    private static byte[] decompress(Path file, byte[] bytes) {
        if (bytes.length < 2 || (bytes[0] & 0xff) != 0x1f || (bytes[1] & 0xff) != 0x8b) {
            return bytes;
        }
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(bytes), 1 << 16)) {
            return in.readAllBytes();
        } catch (ZipException e) {
            throw new DataException(file + ": corrupt gzip data: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new DataException(file + ": cannot decompress: " + e.getMessage(), e);
        }
    }

    /** Checks the magic number and returns the dimension sizes. */
    private static int[] header(Path file, ByteBuffer data, int magic, String what) {
        if (data.remaining() < 4) {
            throw new DataException(file + ": too short for an IDX header");
        }
        int found = data.getInt();
        if (found != magic) {
            throw new DataException(file + ": magic number 0x" + String.format("%08x", found) + ", expected 0x"
                    + String.format("%08x", magic) + " (" + what + ")");
        }
        int dims = magic & 0xff;
        if (data.remaining() < 4 * dims) {
            throw new DataException(file + ": truncated IDX header");
        }
        int[] sizes = new int[dims];
        for (int i = 0; i < dims; i++) {
            sizes[i] = data.getInt();
            if (sizes[i] < 0 || (i > 0 && sizes[i] == 0)) {
                throw new DataException(file + ": bad size " + sizes[i] + " of dimension " + i);
            }
        }
        return sizes;
    }

    private static byte[] body(Path file, ByteBuffer data, int length) {
        if (data.remaining() != length) {
            throw new DataException(file + ": header announces " + length + " data bytes, file holds "
                    + data.remaining() + (data.remaining() < length ? " (truncated)" : " (trailing bytes)"));
        }
        byte[] out = new byte[length];
        data.get(out);
        return out;
    }
}
