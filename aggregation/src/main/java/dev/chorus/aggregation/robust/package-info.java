/**
 * Byzantine-robust aggregation rules as pure functions: inputs in, aggregate out, no state, nothing else
 * touched. Each rule validates its inputs (same length, finite, enough of them for the number of faulty inputs it
 * tolerates) and writes into a caller-supplied output array. The scratch memory of {@code aggregate} grows with the
 * number of inputs (Krum's pairwise distances take {@code n x n}), never with the model size; only
 * {@link dev.chorus.aggregation.robust.Krum#select}, which has no output array, allocates one of model size to
 * validate against.
 */
package dev.chorus.aggregation.robust;
