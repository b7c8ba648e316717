package dev.chorus.learning.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonReaderTest {

    @Test
    void parsesEveryKindOfValue() {
        Object value = JsonReader.parse(
                " {\"s\": \"a\\u00e9\\n\\/\", \"i\": -12, \"d\": 1.5e2, \"t\": true, \"f\": false, \"n\": null,"
                        + " \"a\": [1, [2], {}], \"big\": 12345678901234567890} ");
        assertThat(value).isInstanceOf(Map.class);
        @SuppressWarnings("unchecked")
        Map<String, Object> m = (Map<String, Object>) value;
        assertThat(m.keySet()).containsExactly("s", "i", "d", "t", "f", "n", "a", "big");
        assertThat(m.get("s")).isEqualTo("aé\n/");
        assertThat(m.get("i")).isEqualTo(-12L);
        assertThat(m.get("d")).isEqualTo(150.0);
        assertThat(m.get("t")).isEqualTo(true);
        assertThat(m.get("f")).isEqualTo(false);
        assertThat(m.get("n")).isNull();
        assertThat(m.get("a")).isEqualTo(List.of(1L, List.of(2L), Map.of()));
        assertThat(m.get("big")).isEqualTo(1.2345678901234567e19);
        assertThat(JsonReader.parse("\"\\ud83d\\ude00\"")).isEqualTo("😀");
    }

    @Test
    void malformedTextNamesTheOffset() {
        assertThatThrownBy(() -> JsonReader.parse("{\"a\": 1,}"))
                .isInstanceOf(JsonException.class)
                .hasMessage("malformed JSON at offset 8: expected a member name");
        assertThatThrownBy(() -> JsonReader.parse("[1 2]"))
                .hasMessage("malformed JSON at offset 3: expected ',' or ']' in array");
        assertThatThrownBy(() -> JsonReader.parse("01")).hasMessageContaining("unexpected text after the JSON value");
        assertThatThrownBy(() -> JsonReader.parse("1."))
                .hasMessageContaining("expected a digit after the decimal point");
        assertThatThrownBy(() -> JsonReader.parse("NaN")).hasMessageContaining("unexpected character 'N'");
        assertThatThrownBy(() -> JsonReader.parse("\"a\nb\"")).hasMessageContaining("unescaped control character");
        assertThatThrownBy(() -> JsonReader.parse("\"abc")).hasMessageContaining("unterminated string");
        assertThatThrownBy(() -> JsonReader.parse("\"\\x\"")).hasMessageContaining("bad escape");
        assertThatThrownBy(() -> JsonReader.parse("tru")).hasMessageContaining("expected true");
        assertThatThrownBy(() -> JsonReader.parse("")).hasMessageContaining("unexpected end of input");
        assertThatThrownBy(() -> JsonReader.parse("{\"a\":1,\"a\":2}"))
                .hasMessageContaining("duplicate member name \"a\"");
        assertThatThrownBy(() -> JsonReader.parseObject("[]")).hasMessage("expected a JSON object at the top level");
    }

    @Test
    void deepNestingIsRefusedWithoutOverflowingTheStack() {
        String deep = "[".repeat(100_000) + "]".repeat(100_000);
        assertThatThrownBy(() -> JsonReader.parse(deep)).hasMessageContaining("nesting deeper than 256");
        String ok = "[".repeat(256) + "]".repeat(256);
        assertThat(JsonReader.parse(ok)).isInstanceOf(List.class);
    }
}
