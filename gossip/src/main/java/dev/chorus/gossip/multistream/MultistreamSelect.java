package dev.chorus.gossip.multistream;

import dev.chorus.gossip.encoding.Varint;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.CorruptedFrameException;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * multistream-select 1.0 messages and the two negotiation roles. Every message is
 * {@code uvarint(len) ++ UTF-8 text ++ '\n'}, the length counting the newline. Both sides send {@link
 * #PROTOCOL_ID} first; the dialer then proposes protocols one at a time and the listener echoes the one
 * it accepts or answers {@code na}.
 *
 * <p>The state machines only consume complete messages from the input buffer and leave everything
 * after the negotiated protocol's echo in it, so the caller can pass those bytes on.
 */
public final class MultistreamSelect {
    public static final String PROTOCOL_ID = "/multistream/1.0.0";
    public static final String NA = "na";
    public static final String LS = "ls";
    /** The longest protocol id js-libp2p accepts ({@code MAX_PROTOCOL_LENGTH}). */
    public static final int MAX_PROTOCOL_LENGTH = 1024;
    /** A listener gives up after this many proposals it had to refuse. */
    public static final int MAX_ATTEMPTS = 32;

    private MultistreamSelect() {}

    public static byte[] encode(String message) {
        byte[] text = message.getBytes(StandardCharsets.UTF_8);
        if (text.length > MAX_PROTOCOL_LENGTH) {
            throw new IllegalArgumentException("protocol id longer than " + MAX_PROTOCOL_LENGTH + " bytes");
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(text.length + 3);
        out.writeBytes(Varint.encode(text.length + 1L));
        out.writeBytes(text);
        out.write('\n');
        return out.toByteArray();
    }

    /**
     * Reads one message, without its newline, or returns null if the buffer does not yet hold all of it.
     *
     * @throws NegotiationException on a length above {@link #MAX_PROTOCOL_LENGTH} + 1, a missing
     *     newline, an embedded newline or malformed UTF-8
     */
    public static String tryRead(ByteBuf in) {
        int start = in.readerIndex();
        long len;
        try {
            len = Varint.tryRead(in);
        } catch (CorruptedFrameException e) {
            throw new NegotiationException("malformed message length: " + e.getMessage());
        }
        if (len == Varint.INCOMPLETE) {
            return null;
        }
        if (len > MAX_PROTOCOL_LENGTH + 1) {
            throw new NegotiationException("message of " + len + " bytes exceeds " + (MAX_PROTOCOL_LENGTH + 1));
        }
        if (len == 0) {
            throw new NegotiationException("empty message");
        }
        if (in.readableBytes() < len) {
            in.readerIndex(start);
            return null;
        }
        byte[] b = new byte[(int) len];
        in.readBytes(b);
        if (b[b.length - 1] != '\n') {
            throw new NegotiationException("message does not end with a newline");
        }
        for (int i = 0; i < b.length - 1; i++) {
            if (b[i] == '\n') {
                throw new NegotiationException("message contains an embedded newline");
            }
        }
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(b, 0, b.length - 1))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new NegotiationException("message is not valid UTF-8");
        }
    }

    /** One side's negotiation state machine. */
    public interface Negotiator {
        /** The bytes to send first (header, and for the dialer the first proposal: one write). */
        byte[] start();

        /**
         * Consumes complete messages from {@code in}, appending replies to {@code out}.
         *
         * @return the negotiated protocol, or null while more input is needed
         */
        String onInput(ByteBuf in, ByteArrayOutputStream out);
    }

    /** The side that proposes, trying {@code protocols} in order. */
    public static final class Dialer implements Negotiator {
        private final List<String> protocols;
        private int index;
        private boolean headerSeen;

        public Dialer(List<String> protocols) {
            if (protocols.isEmpty()) {
                throw new IllegalArgumentException("no protocol to propose");
            }
            this.protocols = List.copyOf(protocols);
        }

        @Override
        public byte[] start() {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.writeBytes(encode(PROTOCOL_ID));
            out.writeBytes(encode(protocols.get(0)));
            return out.toByteArray();
        }

        @Override
        public String onInput(ByteBuf in, ByteArrayOutputStream out) {
            String msg;
            while ((msg = tryRead(in)) != null) {
                if (!headerSeen) {
                    if (!msg.equals(PROTOCOL_ID)) {
                        throw new NegotiationException("expected " + PROTOCOL_ID + ", got '" + abbreviate(msg) + "'");
                    }
                    headerSeen = true;
                    continue;
                }
                String proposed = protocols.get(index);
                if (msg.equals(proposed)) {
                    return proposed;
                }
                if (!msg.equals(NA)) {
                    throw new NegotiationException("proposed " + proposed + ", got '" + abbreviate(msg) + "'");
                }
                if (++index == protocols.size()) {
                    throw new UnsupportedProtocolException(protocols);
                }
                out.writeBytes(encode(protocols.get(index)));
            }
            return null;
        }
    }

    /** The side that accepts: any protocol {@code supported} approves; {@code ls} lists {@code listed}. */
    public static final class Listener implements Negotiator {
        private final Predicate<String> supported;
        private final Supplier<List<String>> listed;
        private boolean headerSeen;
        private int refused;

        public Listener(Predicate<String> supported, Supplier<List<String>> listed) {
            this.supported = supported;
            this.listed = listed;
        }

        public Listener(List<String> protocols) {
            this(List.copyOf(protocols)::contains, () -> protocols);
        }

        @Override
        public byte[] start() {
            return encode(PROTOCOL_ID);
        }

        @Override
        public String onInput(ByteBuf in, ByteArrayOutputStream out) {
            String msg;
            while ((msg = tryRead(in)) != null) {
                if (!headerSeen) {
                    if (!msg.equals(PROTOCOL_ID)) {
                        throw new NegotiationException("expected " + PROTOCOL_ID + ", got '" + abbreviate(msg) + "'");
                    }
                    headerSeen = true;
                    continue;
                }
                if (msg.equals(LS)) {
                    out.writeBytes(listing(listed.get()));
                } else if (!msg.equals(NA) && supported.test(msg)) {
                    out.writeBytes(encode(msg));
                    return msg;
                } else {
                    out.writeBytes(encode(NA));
                }
                if (++refused >= MAX_ATTEMPTS) {
                    throw new NegotiationException("gave up after " + MAX_ATTEMPTS + " proposals");
                }
            }
            return null;
        }
    }

    /** The {@code ls} reply: one length-prefixed message holding each protocol as a message, then '\n'. */
    static byte[] listing(List<String> protocols) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (String p : protocols) {
            body.writeBytes(encode(p));
        }
        body.write('\n');
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(Varint.encode(body.size()));
        out.writeBytes(body.toByteArray());
        return out.toByteArray();
    }

    /** Parses an {@code ls} reply body (without the outer length); for tests and diagnostics. */
    static List<String> parseListing(ByteBuf body) {
        List<String> out = new ArrayList<>();
        while (body.readableBytes() > 1) {
            String p = tryRead(body);
            if (p == null) {
                throw new NegotiationException("truncated ls listing");
            }
            out.add(p);
        }
        return out;
    }

    static String abbreviate(String s) {
        return s.length() <= 64 ? s : s.substring(0, 64) + "...";
    }
}
