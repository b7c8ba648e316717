package dev.chorus.gpu.kernel;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * One PTX file shipped as a resource under {@code dev/chorus/gpu/kernels/}, compiled from the
 * {@code .cu} file of the same name in {@code src/main/cuda} by {@code generate-ptx.sh}.
 */
public enum KernelModule {
    ELEMENTWISE("elementwise"),
    REDUCE("reduce"),
    LOSS("loss"),
    CONV("conv"),
    OPTIM("optim");

    private final String baseName;

    KernelModule(String baseName) {
        this.baseName = baseName;
    }

    /** The source file in {@code src/main/cuda}. */
    public String sourceFile() {
        return baseName + ".cu";
    }

    /** The resource path of the PTX. */
    public String resource() {
        return "/dev/chorus/gpu/kernels/" + baseName + ".ptx";
    }

    /** The PTX text's bytes. */
    public byte[] ptx() {
        try (InputStream in = KernelModule.class.getResourceAsStream(resource())) {
            if (in == null) {
                throw new IllegalStateException("PTX resource " + resource() + " is missing from the class path");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + resource(), e);
        }
    }
}
