/**
 * Byzantine-robust aggregation rules as pure functions: inputs in, aggregate out, no state, nothing else
 * touched. Each rule validates its inputs (same length, finite, enough of them for the number of faulty inputs it
 * tolerates) and writes into a caller-supplied output array. Scratch memory is proportional to the number of
 * inputs, never to the model size.
 */
package dev.chorus.aggregation.robust;
