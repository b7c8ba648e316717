/**
 * The ND4J CPU backend of the tensor SPI: tensors are off-heap ND4J buffers; matrix products and
 * vector updates call the OpenBLAS that ND4J ships directly through {@code java.lang.foreign}; the
 * remaining element-wise work runs as Java loops over the same memory. Nothing outside this package
 * sees an ND4J type except through {@link dev.chorus.learning.tensor.nd4j.Nd4jTensor#asINDArray()}.
 */
package dev.chorus.learning.tensor.nd4j;
