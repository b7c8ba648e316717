package dev.chorus.node.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.LayoutBase;
import dev.chorus.learning.json.JsonWriter;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.TreeMap;

/**
 * One JSON object per event, on one line, for a log collector:
 *
 * <pre>{"timestamp":"2026-01-02T03:04:05.678Z","level":"WARN","logger":"dev.chorus.Foo",
 * "thread":"main","message":"...","mdc":{"k":"v"},"stack_trace":"java.io.IOException: ..."}</pre>
 *
 * The timestamp is ISO-8601 in UTC with milliseconds; {@code mdc} is present only when the event
 * carries MDC entries, {@code stack_trace} only when it carries an exception (the whole chain of
 * causes, as Java prints it). Strings are escaped as RFC 8259 requires, so a message with quotes,
 * backslashes or line breaks stays on its line.
 */
public final class JsonLineLayout extends LayoutBase<ILoggingEvent> {

    private static final DateTimeFormatter TIMESTAMP =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    @Override
    public String doLayout(ILoggingEvent event) {
        StringBuilder sb = new StringBuilder(256);
        JsonWriter w = JsonWriter.compact(sb);
        w.beginObject();
        w.name("timestamp").value(TIMESTAMP.format(Instant.ofEpochMilli(event.getTimeStamp())));
        w.name("level").value(event.getLevel().toString());
        w.name("logger").value(nonNull(event.getLoggerName()));
        w.name("thread").value(nonNull(event.getThreadName()));
        w.name("message").value(nonNull(event.getFormattedMessage()));
        Map<String, String> mdc = event.getMDCPropertyMap();
        if (mdc != null && !mdc.isEmpty()) {
            w.name("mdc").beginObject();
            for (Map.Entry<String, String> e : new TreeMap<>(mdc).entrySet()) {
                w.name(e.getKey()).value(nonNull(e.getValue()));
            }
            w.endObject();
        }
        IThrowableProxy thrown = event.getThrowableProxy();
        if (thrown != null) {
            w.name("stack_trace").value(ThrowableProxyUtil.asString(thrown).stripTrailing());
        }
        w.endObject();
        w.finish();
        sb.append('\n');
        return sb.toString();
    }

    @Override
    public String getContentType() {
        return "application/x-ndjson";
    }

    private static String nonNull(String s) {
        return s == null ? "" : s;
    }
}
