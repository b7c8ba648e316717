package dev.chorus.node.api;

import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.function.LongSupplier;

/**
 * How fast the egress audit log grows, and when it would reach its cap ({@code audit.max_mb}) at that pace. The log
 * grows with the node's traffic, so the rate is measured over the last hour of records (sampled at most once a
 * minute, when asked), or since the node started when it has run for less. Past the cap the oldest files are deleted
 * early, each with a warning: an estimate of days rather than hours says the retention works as configured.
 * Thread-safe.
 */
public final class AuditGrowth {

    /**
     * @param sizeBytes the log's files now
     * @param capBytes {@code audit.max_mb}
     * @param bytesPerHour the recent rate of growth; NaN before a second has passed
     * @param daysUntilCap at that rate; infinite when it does not grow, NaN when unknown
     */
    public record Estimate(long sizeBytes, long capBytes, double bytesPerHour, double daysUntilCap) {}

    private static final long SAMPLE_MILLIS = 60_000;
    private static final long WINDOW_MILLIS = 3_600_000;

    private record Sample(long millis, long bytes) {}

    private final LongSupplier bytesWritten;
    private final LongSupplier sizeOnDisk;
    private final long capBytes;
    private final InstantSource clock;
    private final ArrayDeque<Sample> samples = new ArrayDeque<>();

    /**
     * @param bytesWritten bytes appended to the log since it was opened
     * @param sizeOnDisk bytes of its files now
     * @param capBytes its cap
     */
    public AuditGrowth(LongSupplier bytesWritten, LongSupplier sizeOnDisk, long capBytes, InstantSource clock) {
        this.bytesWritten = bytesWritten;
        this.sizeOnDisk = sizeOnDisk;
        this.capBytes = capBytes;
        this.clock = clock;
        samples.add(new Sample(clock.millis(), bytesWritten.getAsLong()));
    }

    /** The estimate now. */
    public synchronized Estimate estimate() {
        long now = clock.millis();
        long bytes = bytesWritten.getAsLong();
        if (now - samples.getLast().millis() >= SAMPLE_MILLIS) {
            samples.addLast(new Sample(now, bytes));
        }
        while (samples.size() > 1 && now - samples.getFirst().millis() > WINDOW_MILLIS) {
            samples.removeFirst();
        }
        Sample from = samples.getFirst();
        long elapsed = now - from.millis();
        double perHour = elapsed < 1000 ? Double.NaN : (bytes - from.bytes()) * 3_600_000.0 / elapsed;
        long size = sizeOnDisk.getAsLong();
        double days = Double.isNaN(perHour)
                ? Double.NaN
                : perHour <= 0 ? Double.POSITIVE_INFINITY : Math.max(0, capBytes - size) / (perHour * 24);
        return new Estimate(size, capBytes, perHour, days);
    }
}
