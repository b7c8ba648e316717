package dev.chorus.learning.data;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Images and labels read from a pair of IDX files, kept as the original unsigned bytes so that
 * shards can be written back exactly.
 *
 * @param imagesSource the images file
 * @param imagesSha256 SHA-256 of the images file as stored (compressed or not)
 * @param labelsSource the labels file
 * @param labelsSha256 SHA-256 of the labels file as stored
 * @param height rows of pixels per image
 * @param width columns of pixels per image
 * @param pixels {@code count * height * width} unsigned bytes, image after image, row-major
 * @param labels one unsigned byte per image
 */
public record IdxData(
        Path imagesSource,
        String imagesSha256,
        Path labelsSource,
        String labelsSha256,
        int height,
        int width,
        byte[] pixels,
        byte[] labels) {

    public IdxData {
        Objects.requireNonNull(pixels, "pixels");
        Objects.requireNonNull(labels, "labels");
        // One image's pixels fit a long (two sizes below 2^31); their product with the count is compared only when
        // it fits too, since a wrapped product could equal the array's length.
        long imagePixels = (long) height * width;
        if (height < 0
                || width < 0
                || Math.multiplyHigh(imagePixels, labels.length) != 0
                || imagePixels * labels.length != pixels.length) {
            throw new IllegalArgumentException(
                    pixels.length + " pixels for " + labels.length + " images of " + height + "x" + width);
        }
    }

    /** Number of images. */
    public int count() {
        return labels.length;
    }

    /** The labels as ints in [0, 255]. */
    public int[] labelArray() {
        int[] out = new int[labels.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = Byte.toUnsignedInt(labels[i]);
        }
        return out;
    }

    /** One more than the largest label, at least 2. */
    public int inferredClasses() {
        int max = 1;
        for (byte label : labels) {
            max = Math.max(max, Byte.toUnsignedInt(label));
        }
        return max + 1;
    }

    /** The images and labels of rows {@code indices}, in that order. */
    public IdxData subset(int[] indices) {
        int size = height * width;
        byte[] p = new byte[indices.length * size];
        byte[] l = new byte[indices.length];
        for (int i = 0; i < indices.length; i++) {
            System.arraycopy(pixels, indices[i] * size, p, i * size, size);
            l[i] = labels[indices[i]];
        }
        return new IdxData(imagesSource, imagesSha256, labelsSource, labelsSha256, height, width, p, l);
    }

    /**
     * The data set of these images: one feature per pixel, scaled to [0, 1] by dividing by 255;
     * classes named {@code "0"}, {@code "1"}, ...
     *
     * @param classes the number of classes (fixed across nodes, e.g. 10 for Fashion-MNIST); every
     *     label must be below it
     */
    public Dataset toDataset(int classes) {
        int size = height * width;
        float[] features = new float[pixels.length];
        for (int i = 0; i < pixels.length; i++) {
            features[i] = Byte.toUnsignedInt(pixels[i]) / 255f;
        }
        int[] y = labelArray();
        for (int i = 0; i < y.length; i++) {
            if (y[i] >= classes) {
                throw new DataException(labelsSource + ": label " + y[i] + " of item " + i + " is not below the "
                        + classes + " classes");
            }
        }
        List<String> featureNames = new ArrayList<>(size);
        for (int r = 0; r < height; r++) {
            for (int c = 0; c < width; c++) {
                featureNames.add("pixel" + r + "x" + c);
            }
        }
        List<String> classNames = new ArrayList<>(classes);
        for (int k = 0; k < classes; k++) {
            classNames.add(Integer.toString(k));
        }
        return new Dataset(features, y.length, size, y, classes, featureNames, classNames);
    }
}
