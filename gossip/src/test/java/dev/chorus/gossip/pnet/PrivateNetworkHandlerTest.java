package dev.chorus.gossip.pnet;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The handler between embedded channels: bytes in, bytes out, against published XSalsa20 vectors and itself. */
class PrivateNetworkHandlerTest {
    private static final HexFormat HEX = HexFormat.of();
    private static final SecureRandom RANDOM = new SecureRandom();

    /** Every buffer the channel wrote, concatenated; each one is released. */
    private static byte[] drainOutbound(EmbeddedChannel ch) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteBuf b;
        while ((b = ch.readOutbound()) != null) {
            try {
                byte[] a = new byte[b.readableBytes()];
                b.readBytes(a);
                out.writeBytes(a);
            } finally {
                b.release();
            }
        }
        return out.toByteArray();
    }

    private static byte[] drainInbound(EmbeddedChannel ch) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteBuf b;
        while ((b = ch.readInbound()) != null) {
            try {
                byte[] a = new byte[b.readableBytes()];
                b.readBytes(a);
                out.writeBytes(a);
            } finally {
                b.release();
            }
        }
        return out.toByteArray();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /**
     * NaCl's {@code tests/stream3.c} (also in libsodium's tests): the first 32 bytes of the XSalsa20 keystream for
     * its "firstkey" and nonce, here as the ciphertext of 32 zero bytes, after the nonce in the clear.
     */
    @Test
    void theKeystreamMatchesNaclsXsalsa20Vector() {
        PreSharedKey key =
                PreSharedKey.of(HEX.parseHex("1b27556473e985d462cd51197a9a46c76009549eac6474f206c4ee0844f68389"));
        byte[] nonce = HEX.parseHex("69696ee955b62b73cd62bda875fc73d68219e0036b7a0b37");
        EmbeddedChannel ch = new EmbeddedChannel(new PrivateNetworkHandler(key, nonce));
        ByteBuf zeros = Unpooled.wrappedBuffer(new byte[32]);
        ch.writeOutbound(zeros);
        assertThat(zeros.refCnt()).isZero();
        assertThat(HEX.formatHex(drainOutbound(ch)))
                .isEqualTo(HEX.formatHex(nonce) + "eea6a7251c1e72916d11c2cb214d3c252539121d8e234e652d651fa4c8cff880");
        ch.finishAndReleaseAll();
    }

    private static final PreSharedKey GO_KEY =
            PreSharedKey.of("this is 32-byte key for xsalsa20".getBytes(StandardCharsets.US_ASCII));
    private static final byte[] GO_NONCE = "24-byte nonce for xsalsa".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] GO_CIPHERTEXT = HEX.parseHex("002d4513843fc240c401e541");

    /** golang.org/x/crypto salsa20_test.go, {@code xSalsa20TestData[0]}: "Hello world!" encrypted. */
    @Test
    void writesMatchGosXsalsa20Vector() {
        EmbeddedChannel ch = new EmbeddedChannel(new PrivateNetworkHandler(GO_KEY, GO_NONCE));
        // Two writes: the keystream continues across buffers. A direct buffer has no array to read from.
        ByteBuf first = Unpooled.directBuffer().writeBytes("Hello ".getBytes(StandardCharsets.US_ASCII));
        ch.writeOutbound(first, Unpooled.copiedBuffer("world!", StandardCharsets.US_ASCII));
        assertThat(drainOutbound(ch)).isEqualTo(concat(GO_NONCE, GO_CIPHERTEXT));
        ch.finishAndReleaseAll();
    }

    @Test
    void readsDecryptWithTheRemotesNonce() {
        EmbeddedChannel ch = new EmbeddedChannel(new PrivateNetworkHandler(GO_KEY, RANDOM));
        drainOutbound(ch); // our own nonce
        ByteBuf in = Unpooled.wrappedBuffer(concat(GO_NONCE, GO_CIPHERTEXT));
        ch.writeInbound(in);
        assertThat(in.refCnt()).isZero();
        assertThat(new String(drainInbound(ch), StandardCharsets.US_ASCII)).isEqualTo("Hello world!");
        ch.finishAndReleaseAll();
    }

    @Test
    void nothingIsPassedOnUntilTheRemotesNonceIsComplete() {
        EmbeddedChannel ch = new EmbeddedChannel(new PrivateNetworkHandler(GO_KEY, RANDOM));
        drainOutbound(ch);
        for (int i = 0; i < GO_NONCE.length - 1; i++) {
            ch.writeInbound(Unpooled.wrappedBuffer(GO_NONCE, i, 1));
            assertThat((Object) ch.readInbound()).isNull();
        }
        // The nonce's last byte, with the first bytes of data behind it in the same read.
        ch.writeInbound(Unpooled.wrappedBuffer(concat(new byte[] {GO_NONCE[23]}, Arrays.copyOf(GO_CIPHERTEXT, 5))));
        ch.writeInbound(Unpooled.wrappedBuffer(Arrays.copyOfRange(GO_CIPHERTEXT, 5, GO_CIPHERTEXT.length)));
        assertThat(new String(drainInbound(ch), StandardCharsets.US_ASCII)).isEqualTo("Hello world!");
        ch.finishAndReleaseAll();
    }

    @Test
    void theNonceGoesOutOnceAndFirst() {
        EmbeddedChannel ch = new EmbeddedChannel(new PrivateNetworkHandler(GO_KEY, GO_NONCE));
        ch.pipeline().fireChannelActive(); // a second activation must not send it again
        ch.writeOutbound(Unpooled.copiedBuffer("Hello world!", StandardCharsets.US_ASCII));
        assertThat(drainOutbound(ch)).isEqualTo(concat(GO_NONCE, GO_CIPHERTEXT));
        ch.finishAndReleaseAll();
    }

    /** Moves every byte each side wrote to the other, cut into reads of random sizes. */
    private static void pump(EmbeddedChannel from, EmbeddedChannel to, Random random) {
        byte[] bytes = drainOutbound(from);
        int i = 0;
        while (i < bytes.length) {
            int n = Math.min(bytes.length - i, 1 + random.nextInt(40));
            to.writeInbound(Unpooled.wrappedBuffer(bytes, i, n));
            i += n;
        }
    }

    @Test
    void twoSidesWithTheSameKeyExchangeBytesBothWays() {
        long seed = RANDOM.nextLong();
        Random random = new Random(seed);
        PreSharedKey key = PreSharedKey.generate();
        EmbeddedChannel a = new EmbeddedChannel(new PrivateNetworkHandler(key, RANDOM));
        EmbeddedChannel b = new EmbeddedChannel(new PrivateNetworkHandler(key, RANDOM));
        ByteArrayOutputStream sentByA = new ByteArrayOutputStream();
        ByteArrayOutputStream sentByB = new ByteArrayOutputStream();
        ByteArrayOutputStream gotByA = new ByteArrayOutputStream();
        ByteArrayOutputStream gotByB = new ByteArrayOutputStream();
        for (int round = 0; round < 50; round++) {
            byte[] x = new byte[random.nextInt(3000)];
            byte[] y = new byte[random.nextInt(100)];
            random.nextBytes(x);
            random.nextBytes(y);
            a.writeOutbound(Unpooled.wrappedBuffer(x));
            b.writeOutbound(Unpooled.wrappedBuffer(y));
            sentByA.writeBytes(x);
            sentByB.writeBytes(y);
            pump(a, b, random);
            pump(b, a, random);
            gotByA.writeBytes(drainInbound(a));
            gotByB.writeBytes(drainInbound(b));
        }
        assertThat(gotByB.toByteArray()).as("seed %d", seed).isEqualTo(sentByA.toByteArray());
        assertThat(gotByA.toByteArray()).as("seed %d", seed).isEqualTo(sentByB.toByteArray());
        a.finishAndReleaseAll();
        b.finishAndReleaseAll();
    }

    @Test
    void withAnotherKeyTheBytesAreNoise() {
        EmbeddedChannel a = new EmbeddedChannel(new PrivateNetworkHandler(PreSharedKey.generate(), RANDOM));
        EmbeddedChannel b = new EmbeddedChannel(new PrivateNetworkHandler(PreSharedKey.generate(), RANDOM));
        byte[] text = "/multistream/1.0.0\n".getBytes(StandardCharsets.US_ASCII);
        a.writeOutbound(Unpooled.wrappedBuffer(text));
        byte[] wire = drainOutbound(a);
        assertThat(Arrays.copyOfRange(wire, PrivateNetworkHandler.NONCE_BYTES, wire.length))
                .isNotEqualTo(text);
        b.writeInbound(Unpooled.wrappedBuffer(wire));
        byte[] got = drainInbound(b);
        assertThat(got).hasSameSizeAs(text).isNotEqualTo(text);
        a.finishAndReleaseAll();
        b.finishAndReleaseAll();
    }
}
