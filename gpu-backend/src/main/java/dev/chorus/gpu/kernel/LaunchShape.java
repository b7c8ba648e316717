package dev.chorus.gpu.kernel;

/**
 * The grid and block of one launch (z is always 1).
 *
 * @param gridX blocks along x
 * @param gridY blocks along y
 * @param blockX threads per block along x
 * @param blockY threads per block along y
 */
public record LaunchShape(int gridX, int gridY, int blockX, int blockY) {

    /** Most blocks along y that the hardware allows. */
    public static final int MAX_GRID_Y = 65535;

    public LaunchShape {
        if (gridX < 1 || gridY < 1 || gridY > MAX_GRID_Y || blockX < 1 || blockY < 1 || blockX * blockY > 1024) {
            throw new IllegalArgumentException(
                    "bad launch shape: grid " + gridX + "x" + gridY + ", block " + blockX + "x" + blockY);
        }
    }

    /**
     * A one-dimensional launch of {@link Kernel#BLOCK}-thread blocks for a grid-stride loop over
     * {@code n} elements: one thread per element up to {@code maxBlocks} blocks, at least one block.
     */
    public static LaunchShape linear(long n, int maxBlocks) {
        long blocks = (n + Kernel.BLOCK - 1) / Kernel.BLOCK;
        return new LaunchShape((int) Math.max(1, Math.min(blocks, maxBlocks)), 1, Kernel.BLOCK, 1);
    }

    /** Threads in the whole grid. */
    public long threads() {
        return (long) gridX * gridY * blockX * blockY;
    }
}
