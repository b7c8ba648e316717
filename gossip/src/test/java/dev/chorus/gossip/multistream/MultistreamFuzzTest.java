package dev.chorus.gossip.multistream;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.util.List;

/**
 * Coverage-guided fuzz tests of multistream-select: the line reader and both negotiators reject bad input only with
 * {@link NegotiationException}, never read a line over the protocol-id cap, and a line read re-encodes to the bytes it
 * came from. Regression inputs: {@code MultistreamFuzzTestInputs/}.
 */
class MultistreamFuzzTest {
    private static final List<String> PROTOCOLS = List.of("/yamux/1.0.0", "/noise", "/ipfs/id/1.0.0");

    @FuzzTest
    void lines(byte[] data) {
        ByteBuf in = Unpooled.wrappedBuffer(data);
        try {
            while (in.isReadable()) {
                int start = in.readerIndex();
                String line = MultistreamSelect.tryRead(in);
                if (line == null) {
                    assertThat(in.readerIndex()).isEqualTo(start);
                    return;
                }
                byte[] encoded = MultistreamSelect.encode(line);
                assertThat(in.readerIndex() - start).isEqualTo(encoded.length);
                byte[] read = new byte[encoded.length];
                in.getBytes(start, read);
                assertThat(read).isEqualTo(encoded);
            }
        } catch (NegotiationException rejected) {
            // the reader's documented rejection
        } finally {
            in.release();
        }
    }

    @FuzzTest
    void listener(byte[] data) {
        negotiate(new MultistreamSelect.Listener(PROTOCOLS), data);
    }

    @FuzzTest
    void dialer(byte[] data) {
        negotiate(new MultistreamSelect.Dialer(PROTOCOLS), data);
    }

    /** Feeds the remote's bytes in two pieces; a chosen protocol must be one this side offered. */
    private static void negotiate(MultistreamSelect.Negotiator side, byte[] data) {
        side.start();
        int cut = data.length / 2;
        ByteBuf in = Unpooled.buffer();
        try {
            for (int piece = 0; piece < 2; piece++) {
                in.writeBytes(data, piece == 0 ? 0 : cut, piece == 0 ? cut : data.length - cut);
                String chosen = side.onInput(in, new ByteArrayOutputStream());
                if (chosen != null) {
                    assertThat(PROTOCOLS).contains(chosen);
                    return;
                }
            }
        } catch (NegotiationException rejected) {
            // a refusal or a malformed line, both documented
        } finally {
            in.release();
        }
    }
}
