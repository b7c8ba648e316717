package dev.chorus.gpu;

/**
 * Traffic between host and device and work sent to the device, counted by {@link CudaDevice}.
 *
 * @param hostToDeviceCopies copies from host memory
 * @param hostToDeviceBytes their bytes
 * @param deviceToHostCopies copies to host memory
 * @param deviceToHostBytes their bytes
 * @param launches kernel launches
 * @param gemms cuBLAS matrix products
 * @param synchronizations waits of the host for the stream
 */
public record TransferStats(
        long hostToDeviceCopies,
        long hostToDeviceBytes,
        long deviceToHostCopies,
        long deviceToHostBytes,
        long launches,
        long gemms,
        long synchronizations) {

    /** The counts since {@code earlier}. */
    public TransferStats minus(TransferStats earlier) {
        return new TransferStats(
                hostToDeviceCopies - earlier.hostToDeviceCopies,
                hostToDeviceBytes - earlier.hostToDeviceBytes,
                deviceToHostCopies - earlier.deviceToHostCopies,
                deviceToHostBytes - earlier.deviceToHostBytes,
                launches - earlier.launches,
                gemms - earlier.gemms,
                synchronizations - earlier.synchronizations);
    }
}
