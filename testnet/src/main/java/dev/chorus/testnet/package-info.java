/**
 * Many Chorus nodes on one machine: the in-process testnet, fault and straggler injection, and the experiment drivers that write tables and plots.
 */
package dev.chorus.testnet;
