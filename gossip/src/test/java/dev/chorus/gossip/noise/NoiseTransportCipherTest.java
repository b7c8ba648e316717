package dev.chorus.gossip.noise;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.libcrypto.CryptoMode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The Noise transport framing with libcrypto on one or both ends: heap and direct parts in one write,
 * direct buffers split off frame boundaries on the way in, and the ciphers freed when the channels close.
 */
class NoiseTransportCipherTest {
    private static AeadProvider openssl;

    @BeforeAll
    static void loadLibcrypto() {
        NoiseCiphers.Selection s = NoiseCiphers.select(CryptoMode.AUTO, LibCrypto.DEFAULT_LIBRARY);
        assumeTrue(s.name().equals("openssl"), "libcrypto is unusable here: " + s.reason());
        openssl = s.provider();
    }

    private static AeadProvider provider(String name) {
        return name.equals("jdk") ? NoiseCiphers.jdk() : openssl;
    }

    @ParameterizedTest(name = "initiator {0}, responder {1}")
    @CsvSource({"openssl, jdk", "jdk, openssl", "openssl, openssl"})
    void framesCrossImplementationsAndTheCiphersAreFreedOnClose(String ip, String rp) {
        NoiseHandlerTest.Pair p = NoiseHandlerTest.handshake(
                PrivateKey.generate(), PrivateKey.generate(), null, provider(ip), provider(rp));
        SecureSession is = p.ih().result().join();
        SecureSession rs = p.rh().result().join();
        assertThat(is.cipher()).isEqualTo(ip);
        assertThat(rs.cipher()).isEqualTo(rp);

        byte[] all = new byte[150_000];
        new Random(4).nextBytes(all);
        ByteBuf direct = Unpooled.directBuffer(70_000).writeBytes(all, 12, 70_000);
        p.init()
                .writeOutbound(Unpooled.wrappedBuffer(
                        Unpooled.wrappedBuffer(all, 0, 12), direct, Unpooled.wrappedBuffer(all, 70_012, 79_988)));
        ByteBuf wire = p.init().readOutbound();
        assertThat(wire.readableBytes()).isEqualTo(150_000 + 3 * 18);
        // libcrypto seals straight into the direct buffer the socket sends from; the JDK's cipher into a heap one.
        assertThat(wire.isDirect()).isEqualTo(ip.equals("openssl"));
        while (wire.isReadable()) {
            int n = Math.min(wire.readableBytes(), 50_000);
            ByteBuf piece = Unpooled.directBuffer(n);
            wire.readBytes(piece, n);
            p.resp().writeInbound(piece);
        }
        wire.release();
        assertThat(p.rSink().got.toByteArray()).isEqualTo(all);

        p.resp().writeOutbound(Unpooled.wrappedBuffer(new byte[0]), Unpooled.wrappedBuffer("pong".getBytes()));
        NoiseHandlerTest.pump(p.init(), p.resp());
        assertThat(p.iSink().got.toString()).isEqualTo("pong");

        p.init().finishAndReleaseAll();
        p.resp().finishAndReleaseAll();
        for (SecureSession s : new SecureSession[] {is, rs}) {
            assertThatThrownBy(() -> s.sender.encryptWithAd(null, new byte[1]))
                    .isInstanceOf(NoiseException.class)
                    .hasMessageContaining("closed");
            assertThatThrownBy(() -> s.receiver.decryptWithAd(null, new byte[17]))
                    .isInstanceOf(NoiseException.class)
                    .hasMessageContaining("closed");
        }
    }
}
