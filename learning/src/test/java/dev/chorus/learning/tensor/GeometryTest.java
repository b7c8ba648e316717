package dev.chorus.learning.tensor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class GeometryTest {

    @Test
    void convGeometryDerivesOutputShapeAndTaps() {
        ConvGeometry g = new ConvGeometry(28, 28, 1, 5, 5, 1, 2);
        assertThat(g.outHeight()).isEqualTo(28);
        assertThat(g.outWidth()).isEqualTo(28);
        assertThat(g.taps()).isEqualTo(25);
        assertThat(g.inputSize()).isEqualTo(784);
        ConvGeometry strided = new ConvGeometry(7, 6, 3, 3, 2, 2, 0);
        assertThat(strided.outHeight()).isEqualTo(3);
        assertThat(strided.outWidth()).isEqualTo(3);
        assertThat(strided.taps()).isEqualTo(18);
    }

    @Test
    void convGeometryRejectsAKernelLargerThanThePaddedImage() {
        assertThatThrownBy(() -> new ConvGeometry(3, 3, 1, 4, 4, 1, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("larger than the padded image");
        assertThat(new ConvGeometry(3, 3, 1, 5, 5, 1, 1).outHeight()).isEqualTo(1);
        assertThatThrownBy(() -> new ConvGeometry(3, 3, 1, 3, 3, 0, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void poolGeometryDerivesOutputShape() {
        PoolGeometry g = new PoolGeometry(7, 7, 3, 3, 2);
        assertThat(g.outHeight()).isEqualTo(3);
        assertThat(g.outputSize()).isEqualTo(27);
        assertThat(g.inputSize()).isEqualTo(147);
        assertThatThrownBy(() -> new PoolGeometry(2, 2, 1, 3, 1)).isInstanceOf(IllegalArgumentException.class);
    }
}
