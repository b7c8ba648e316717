package dev.chorus.gossip.pubsub;

/** The outcome of validating a message (gossipsub-v1.1.md, "Extended Validators"). */
public enum ValidationResult {
    /** Valid: delivered to subscribers and forwarded. */
    ACCEPT,
    /** Invalid: dropped, and every peer that delivered it takes the P4 penalty. */
    REJECT,
    /** Neither delivered nor forwarded, without penalty (e.g. not yet able to judge). */
    IGNORE
}
