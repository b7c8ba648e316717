package dev.chorus.learning.tensor;

/**
 * Shape of a 2-D convolution over images stored channels-last (NHWC): one image is a row of {@code
 * height * width * channels} floats, the channel index varying fastest.
 *
 * <p>{@link TensorBackend#im2col} turns a batch of images into a matrix with one row per output
 * pixel ({@code batch * outHeight * outWidth} rows) and one column per kernel tap ({@code
 * kernelHeight * kernelWidth * channels}, channel fastest, then kernel column, then kernel row).
 * Multiplying that by a {@code taps x filters} weight matrix gives the output directly in NHWC
 * order, so a CNN needs no transposes between layers.
 */
public record ConvGeometry(
        int height, int width, int channels, int kernelHeight, int kernelWidth, int stride, int padding) {

    public ConvGeometry {
        if (height <= 0 || width <= 0 || channels <= 0) {
            throw new IllegalArgumentException(
                    "image shape must be positive: " + height + "x" + width + "x" + channels);
        }
        if (kernelHeight <= 0 || kernelWidth <= 0 || stride <= 0 || padding < 0) {
            throw new IllegalArgumentException("bad kernel/stride/padding");
        }
        // Fields are assigned only after a compact constructor's body, so test the parameters here
        // (calling outHeight() would read stride == 0).
        if (kernelHeight > height + 2 * padding || kernelWidth > width + 2 * padding) {
            throw new IllegalArgumentException("kernel " + kernelHeight + "x" + kernelWidth
                    + " larger than the padded image " + (height + 2 * padding) + "x" + (width + 2 * padding));
        }
    }

    public int outHeight() {
        return (height + 2 * padding - kernelHeight) / stride + 1;
    }

    public int outWidth() {
        return (width + 2 * padding - kernelWidth) / stride + 1;
    }

    /** Columns of the im2col matrix: {@code kernelHeight * kernelWidth * channels}. */
    public int taps() {
        return kernelHeight * kernelWidth * channels;
    }

    /** Floats per input image. */
    public int inputSize() {
        return height * width * channels;
    }
}
