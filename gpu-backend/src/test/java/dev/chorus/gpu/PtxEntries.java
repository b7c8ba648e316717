package dev.chorus.gpu;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The kernel entries of a PTX text and the types of their parameters, in order: {@code .visible
 * .entry name( .param .u64 name_param_0, ... )}. Qualifiers such as {@code .ptr .align 4} that newer
 * compilers add after the type are ignored.
 */
final class PtxEntries {

    private static final Pattern ENTRY = Pattern.compile("\\.entry\\s+(\\w+)\\s*\\(([^)]*)\\)", Pattern.DOTALL);
    private static final Pattern PARAM = Pattern.compile("\\.param\\s+(\\.[a-z0-9]+)");

    private PtxEntries() {}

    /** Entry name to parameter types (e.g. {@code .u64}), in declaration order. */
    static Map<String, List<String>> parse(String ptx) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        Matcher m = ENTRY.matcher(ptx);
        while (m.find()) {
            List<String> types = new ArrayList<>();
            for (String param : m.group(2).split(",")) {
                if (param.isBlank()) {
                    continue;
                }
                Matcher p = PARAM.matcher(param);
                if (!p.find()) {
                    throw new IllegalArgumentException(
                            "unparsed PTX parameter '" + param.strip() + "' of " + m.group(1));
                }
                types.add(p.group(1));
            }
            out.put(m.group(1), types);
        }
        return out;
    }

    /** Bytes of one parameter of a PTX type. */
    static int size(String type) {
        return switch (type) {
            case ".u64", ".s64", ".b64", ".f64" -> 8;
            case ".u32", ".s32", ".b32", ".f32" -> 4;
            default -> throw new IllegalArgumentException("unexpected PTX parameter type " + type);
        };
    }
}
