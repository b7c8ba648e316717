package dev.chorus.gossip.core;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

public final class Probe {
    static final ConcurrentHashMap<String, LongAdder> C = new ConcurrentHashMap<>();
    static final long T0 = System.nanoTime();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            double s = (System.nanoTime() - T0) / 1e9;
            C.forEach((k, v) -> System.err.printf("PROBE %s %d %.0f/s%n", k, v.sum(), v.sum() / s));
        }));
    }

    public static void hit(String k) {
        C.computeIfAbsent(k, x -> new LongAdder()).increment();
    }
}
