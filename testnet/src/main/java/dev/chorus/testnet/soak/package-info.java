/**
 * The soak: a testnet of node processes left running for hours while their resident memory, threads, file
 * descriptors and live heap are sampled, and the judgement whether each stayed flat after a warm-up, as a node that
 * runs for months next to a hospital's data must.
 */
package dev.chorus.testnet.soak;
