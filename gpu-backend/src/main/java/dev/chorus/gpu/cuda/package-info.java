/**
 * Bindings to the CUDA driver API ({@code libcuda.so.1}) and cuBLAS through the JDK's foreign
 * function API, with no JNI and no build step: one enum constant per C function with its exported
 * symbol and signature ({@link dev.chorus.gpu.cuda.DriverFunction}, {@link
 * dev.chorus.gpu.cuda.CublasFunction}), typed callers that turn status codes into one-line
 * exceptions, the search for the libraries, and the availability probe. Knows nothing of tensors.
 */
package dev.chorus.gpu.cuda;
