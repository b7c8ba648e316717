/**
 * The CUDA implementation of the tensor SPI of {@code dev.chorus.learning.tensor}, through the JDK's foreign function API into the CUDA driver and cuBLAS; found by {@code ServiceLoader} and ranked above the CPU backends when a usable device is present. Depends on the SPI only.
 */
package dev.chorus.gpu;
