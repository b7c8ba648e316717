package dev.chorus.learning.train;

/** Reports nothing: for tests, simulations of many nodes, and {@code --quiet}. */
enum QuietProgress implements ProgressReporter {
    INSTANCE
}
