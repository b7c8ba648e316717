/**
 * The kernels of {@code src/main/cuda} as the host sees them: the PTX resources ({@link
 * dev.chorus.gpu.kernel.KernelModule}), each kernel's parameter list ({@link
 * dev.chorus.gpu.kernel.Kernel}), the allocation-free marshalling of launch arguments ({@link
 * dev.chorus.gpu.kernel.KernelArgs}) and launch shapes.
 */
package dev.chorus.gpu.kernel;
