package dev.chorus.testnet.soak;

/**
 * One node's resources at one moment of a soak.
 *
 * @param node the node's index in the testnet
 * @param minutes time since the soak's first sample, in minutes
 * @param residentBytes resident memory ({@code VmRSS})
 * @param threads operating-system threads
 * @param openFds open file descriptors
 * @param heapAfterGcBytes heap in use after the latest collection (after a full one when the soak forces it)
 * @param steps the node's training steps so far: it must keep training through the soak
 * @param peers the node's connected peers
 */
public record SoakSample(
        int node,
        double minutes,
        long residentBytes,
        long threads,
        long openFds,
        long heapAfterGcBytes,
        long steps,
        int peers) {

    /** The four resources a soak judges, in the order of {@link #value}. */
    public enum Metric {
        RESIDENT("resident memory", "MiB"),
        THREADS("threads", ""),
        FDS("file descriptors", ""),
        HEAP("heap after GC", "MiB");

        private final String label;
        private final String unit;

        Metric(String label, String unit) {
            this.label = label;
            this.unit = unit;
        }

        public String label() {
            return label;
        }

        /** The unit of {@link SoakSample#display}: MiB for bytes, none for counts. */
        public String unit() {
            return unit;
        }
    }

    /** The raw figure of {@code m} (bytes or a count). */
    public long value(Metric m) {
        return switch (m) {
            case RESIDENT -> residentBytes;
            case THREADS -> threads;
            case FDS -> openFds;
            case HEAP -> heapAfterGcBytes;
        };
    }

    /** The figure of {@code m} as a report shows it: MiB for bytes, the count otherwise. */
    public static double display(Metric m, double raw) {
        return m.unit().isEmpty() ? raw : raw / (1024.0 * 1024.0);
    }
}
