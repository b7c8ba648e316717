/**
 * The CUDA implementation of the tensor SPI of {@code dev.chorus.learning.tensor}: {@link
 * dev.chorus.gpu.CudaBackend} on a {@link dev.chorus.gpu.CudaDevice} (primary context, one stream,
 * the shipped PTX kernels, a cuBLAS handle), registered by {@link dev.chorus.gpu.CudaBackendProvider}
 * and ranked above the CPU backends when {@link dev.chorus.gpu.cuda.CudaAvailability} finds a driver,
 * a device and cuBLAS. Depends on the SPI only; must not touch the rest of {@code learning}.
 */
package dev.chorus.gpu;
