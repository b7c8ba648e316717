package dev.chorus.privacy.secagg;

/** How a group round ended for one participant. */
public sealed interface RoundOutcome {

    /**
     * The round finished: {@code sum} is the decoded sum of the survivors' inputs, {@code sampleCount} their total
     * sample count, {@code contributors} how many they were.
     */
    record Completed(float[] sum, long sampleCount, int contributors) implements RoundOutcome {}

    /** The round was abandoned: the member keeps its model; nothing further was revealed. */
    record Abandoned(String reason) implements RoundOutcome {}
}
