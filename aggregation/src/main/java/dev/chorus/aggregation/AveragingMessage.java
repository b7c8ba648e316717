package dev.chorus.aggregation;

/** A message between the averaging engines of two nodes. */
public sealed interface AveragingMessage permits ModelUpdate, PullRequest {

    /** The node that sent the message. */
    String sender();
}
