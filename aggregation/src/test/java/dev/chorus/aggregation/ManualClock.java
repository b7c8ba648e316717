package dev.chorus.aggregation;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/** A clock that moves only when a test moves it. */
public final class ManualClock implements InstantSource {

    private long millis;

    public ManualClock(long startMillis) {
        this.millis = startMillis;
    }

    public void advance(Duration d) {
        millis += d.toMillis();
    }

    public void advanceMillis(long ms) {
        millis += ms;
    }

    public void setMillis(long ms) {
        millis = ms;
    }

    @Override
    public long millis() {
        return millis;
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis);
    }
}
