package dev.chorus.learning.tensor;

/**
 * Shape of a 2-D max pooling over channels-last (NHWC) images, without padding. One input image is
 * a row of {@code height * width * channels} floats; one output image a row of {@code outHeight *
 * outWidth * channels}.
 */
public record PoolGeometry(int height, int width, int channels, int size, int stride) {

    public PoolGeometry {
        if (height <= 0 || width <= 0 || channels <= 0 || size <= 0 || stride <= 0) {
            throw new IllegalArgumentException("pool shape must be positive");
        }
        if (size > height || size > width) {
            throw new IllegalArgumentException("pool window larger than the image");
        }
    }

    public int outHeight() {
        return (height - size) / stride + 1;
    }

    public int outWidth() {
        return (width - size) / stride + 1;
    }

    public int inputSize() {
        return height * width * channels;
    }

    public int outputSize() {
        return outHeight() * outWidth() * channels;
    }
}
