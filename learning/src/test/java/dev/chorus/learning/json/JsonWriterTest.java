package dev.chorus.learning.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonWriterTest {

    private static String compact(java.util.function.Consumer<JsonWriter> body) {
        StringBuilder sb = new StringBuilder();
        JsonWriter w = JsonWriter.compact(sb);
        body.accept(w);
        w.finish();
        return sb.toString();
    }

    @Test
    void escapesQuotesBackslashesAndControlCharacters() {
        assertThat(JsonWriter.quoted("a\"b\\c")).isEqualTo("\"a\\\"b\\\\c\"");
        assertThat(JsonWriter.quoted("tab\tnl\ncr\rbs\bff\f")).isEqualTo("\"tab\\tnl\\ncr\\rbs\\bff\\f\"");
        assertThat(JsonWriter.quoted("\u0000\u001f\u007f")).isEqualTo("\"\\u0000\\u001f\u007f\"");
        assertThat(JsonWriter.quoted("\u2028\u2029")).isEqualTo("\"\\u2028\\u2029\"");
        assertThat(JsonWriter.quoted("naïve 😀 /")).isEqualTo("\"naïve 😀 /\"");
    }

    @Test
    void numbers() {
        assertThat(compact(w -> w.beginArray()
                        .value(0)
                        .value(-7L)
                        .value(Long.MAX_VALUE)
                        .value(2.0)
                        .value(0.1)
                        .value(-1.5e-10)
                        .value(1e300)
                        .value(Double.NaN)
                        .value(Double.POSITIVE_INFINITY)
                        .value(Double.NEGATIVE_INFINITY)
                        .endArray()))
                .isEqualTo("[0,-7,9223372036854775807,2,0.1,-1.5E-10,1.0E300,null,null,null]");
    }

    @Test
    void nestedDocumentRoundTripsThroughTheReader() {
        String json = compact(w -> w.beginObject()
                .member("name", "wdbc \"M\"")
                .member("rows", 569)
                .member("ok", true)
                .name("missing")
                .nullValue()
                .name("list")
                .beginArray()
                .beginObject()
                .endObject()
                .beginArray()
                .endArray()
                .value("x")
                .endArray()
                .endObject());
        assertThat(json)
                .isEqualTo(
                        "{\"name\":\"wdbc \\\"M\\\"\",\"rows\":569,\"ok\":true,\"missing\":null,\"list\":[{},[],\"x\"]}");
        Map<String, Object> back = JsonReader.parseObject(json);
        assertThat(back.get("name")).isEqualTo("wdbc \"M\"");
        assertThat(back.get("rows")).isEqualTo(569L);
        assertThat(back.get("list")).isEqualTo(List.of(Map.of(), List.of(), "x"));
        assertThat(back).containsEntry("missing", null);
    }

    @Test
    void prettyPrintingIndentsByTwo() {
        StringBuilder sb = new StringBuilder();
        JsonWriter.pretty(sb)
                .beginObject()
                .member("a", 1)
                .name("b")
                .beginArray()
                .value(1)
                .value(2)
                .endArray()
                .name("c")
                .beginObject()
                .endObject()
                .endObject();
        assertThat(sb.toString()).isEqualTo("{\n  \"a\": 1,\n  \"b\": [\n    1,\n    2\n  ],\n  \"c\": {}\n}");
    }

    @Test
    void misuseIsCaught() {
        assertThatThrownBy(() -> compact(w -> w.beginObject().value(1)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("a value inside an object needs a name first");
        assertThatThrownBy(() -> compact(w -> w.beginArray().name("x"))).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> compact(w -> w.beginObject().name("a").name("b")))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> compact(w -> w.beginObject().name("a").endObject()))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> compact(w -> w.beginArray().endObject())).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> compact(w -> w.value(1).value(2)))
                .hasMessage("a JSON document holds one top-level value");
        assertThatThrownBy(() -> compact(w -> w.beginArray())).hasMessageContaining("incomplete JSON document");
        assertThatThrownBy(() -> compact(w -> {})).hasMessageContaining("incomplete JSON document");
    }
}
