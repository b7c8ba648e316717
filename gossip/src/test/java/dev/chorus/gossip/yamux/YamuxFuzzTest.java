package dev.chorus.gossip.yamux;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.chorus.gossip.identity.PeerId;
import dev.chorus.gossip.identity.PrivateKey;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Coverage-guided fuzz test of a yamux session fed a remote's bytes: frames of every type and flag, in pieces, drive
 * the session's state machine. The session may refuse a frame only through its own protocol error (a GoAway and a
 * close); an exception that escapes its decoder (logged as "closing connection to ...") is a finding, and so is a
 * remote opening more streams than {@link YamuxConfig#withMaxInboundStreams} allows. Regression inputs: {@code
 * YamuxFuzzTestInputs/}.
 */
class YamuxFuzzTest {
    private static final int MAX_INBOUND = 4;
    private static final YamuxConfig CONFIG = YamuxConfig.defaults()
            .withInitialWindow(YamuxConfig.SPEC_INITIAL_WINDOW)
            .withKeepAliveInterval(Duration.ZERO)
            .withMaxInboundStreams(MAX_INBOUND)
            .withMaxRefusedStreams(8);
    private static final PeerId PEER = PrivateKey.fromSeed(new byte[32]).peerId();
    private static final Logger SESSION_LOG = Logger.getLogger(YamuxSession.class.getName());
    private static final List<String> ESCAPED = new CopyOnWriteArrayList<>();

    private static final Handler RECORDER = new Handler() {
        @Override
        public void publish(LogRecord r) {
            if (r.getMessage() != null && r.getMessage().startsWith("closing connection to")) {
                ESCAPED.add(r.getMessage());
            }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    /**
     * The session's own protocol errors are expected by the thousand here; they stay off the console while this class
     * runs, and the one record that names an escaped exception is kept for the assertion.
     */
    @BeforeAll
    static void recordSessionLog() {
        SESSION_LOG.setUseParentHandlers(false);
        SESSION_LOG.addHandler(RECORDER);
    }

    @AfterAll
    static void restoreSessionLog() {
        SESSION_LOG.removeHandler(RECORDER);
        SESSION_LOG.setUseParentHandlers(true);
    }

    @FuzzTest
    void serverSession(byte[] data) {
        ESCAPED.clear();
        List<YamuxStream> inbound = new ArrayList<>();
        AtomicLong clock = new AtomicLong(1_000_000_000L);
        YamuxSession session = new YamuxSession(CONFIG, false, PEER, inbound::add, clock::get);
        EmbeddedChannel ch = new EmbeddedChannel(session);
        try {
            int piece = data.length == 0 ? 1 : 1 + (data[0] & 0x1F);
            for (int off = 0; off < data.length && ch.isOpen(); off += piece) {
                ch.writeInbound(
                        Unpooled.wrappedBuffer(Arrays.copyOfRange(data, off, Math.min(data.length, off + piece))));
                clock.addAndGet(1_000_000L);
                ch.runPendingTasks();
                assertThat(session.openStreams()).isLessThanOrEqualTo(MAX_INBOUND);
            }
            for (YamuxStream s : inbound) {
                s.read();
                s.write(new byte[] {1});
                s.reset();
            }
            ch.runPendingTasks();
            ch.checkException();
        } finally {
            ch.finishAndReleaseAll();
        }
        assertThat(ESCAPED).isEmpty();
    }
}
