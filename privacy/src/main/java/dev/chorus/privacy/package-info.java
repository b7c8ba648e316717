/**
 * Secure aggregation (pairwise masks, Shamir shares, dropout recovery), fixed-point quantization, differential privacy, consortium PKI and membership, the egress audit log. Pure state machines over arrays and messages: no networking.
 */
package dev.chorus.privacy;
