package dev.chorus.gossip;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The byte-exact vectors computed with js-libp2p ({@code src/test/resources/libp2p/vectors.json}, a copy of
 * the project's shared vectors). Values are looked up by dotted path, e.g. {@code identities.A.seed}.
 */
public final class Vectors {
    private static final Map<String, Object> ROOT = load();

    private Vectors() {}

    public static String text(String path) {
        Object node = ROOT;
        for (String part : path.split("\\.")) {
            if (!(node instanceof Map<?, ?> map) || !map.containsKey(part)) {
                throw new IllegalArgumentException("no vector " + path);
            }
            node = map.get(part);
        }
        return (String) node;
    }

    public static byte[] hex(String path) {
        return HexFormat.of().parseHex(text(path));
    }

    private static Map<String, Object> load() {
        try (InputStream in = Vectors.class.getResourceAsStream("/libp2p/vectors.json")) {
            String json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            int[] pos = {0};
            @SuppressWarnings("unchecked")
            Map<String, Object> m = (Map<String, Object>) parse(json, pos);
            return m;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Just enough JSON for the vectors file: objects, strings and integers (kept as text). */
    private static Object parse(String s, int[] pos) {
        skipWs(s, pos);
        char c = s.charAt(pos[0]);
        if (c == '{') {
            pos[0]++;
            Map<String, Object> m = new LinkedHashMap<>();
            skipWs(s, pos);
            if (s.charAt(pos[0]) == '}') {
                pos[0]++;
                return m;
            }
            while (true) {
                skipWs(s, pos);
                String key = (String) parse(s, pos);
                skipWs(s, pos);
                expect(s, pos, ':');
                m.put(key, parse(s, pos));
                skipWs(s, pos);
                if (s.charAt(pos[0]) == ',') {
                    pos[0]++;
                } else {
                    expect(s, pos, '}');
                    return m;
                }
            }
        }
        if (c == '"') {
            StringBuilder sb = new StringBuilder();
            pos[0]++;
            while (s.charAt(pos[0]) != '"') {
                char ch = s.charAt(pos[0]++);
                if (ch == '\\') {
                    char e = s.charAt(pos[0]++);
                    sb.append(
                            switch (e) {
                                case 'n' -> '\n';
                                case 't' -> '\t';
                                default -> e;
                            });
                } else {
                    sb.append(ch);
                }
            }
            pos[0]++;
            return sb.toString();
        }
        if (c == '-' || Character.isDigit(c)) {
            int start = pos[0];
            while (s.charAt(pos[0]) == '-' || Character.isDigit(s.charAt(pos[0]))) {
                pos[0]++;
            }
            return s.substring(start, pos[0]);
        }
        throw new IllegalStateException("unexpected '" + c + "' at " + pos[0]);
    }

    private static void skipWs(String s, int[] pos) {
        while (Character.isWhitespace(s.charAt(pos[0]))) {
            pos[0]++;
        }
    }

    private static void expect(String s, int[] pos, char c) {
        if (s.charAt(pos[0]) != c) {
            throw new IllegalStateException("expected '" + c + "' at " + pos[0]);
        }
        pos[0]++;
    }
}
