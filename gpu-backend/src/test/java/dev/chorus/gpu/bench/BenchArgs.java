package dev.chorus.gpu.bench;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** {@code --name value} pairs of a benchmark's command line. */
final class BenchArgs {

    private final Map<String, String> values = new HashMap<>();

    BenchArgs(String[] args) {
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("expected --name value pairs, got '" + args[i] + "'");
            }
            values.put(args[i].substring(2), args[++i]);
        }
    }

    String get(String name, String fallback) {
        return values.getOrDefault(name, fallback);
    }

    double number(String name, double fallback) {
        return values.containsKey(name) ? Double.parseDouble(values.get(name)) : fallback;
    }

    List<String> list(String name, String fallback, String separator) {
        List<String> out = new ArrayList<>();
        for (String s : get(name, fallback).split(separator)) {
            if (!s.isBlank()) {
                out.add(s.trim());
            }
        }
        return out;
    }
}
