package dev.chorus.gossip.multiaddr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.gossip.Vectors;
import dev.chorus.gossip.identity.PeerId;
import java.net.InetSocketAddress;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class MultiaddrTest {
    private static final HexFormat HEX = HexFormat.of();

    @ParameterizedTest
    @ValueSource(strings = {"multiaddr", "multiaddr.ip4tcp", "multiaddr.ip6tcp"})
    void matchesJsVectors(String key) {
        Multiaddr m = Multiaddr.parse(Vectors.text(key + ".text"));
        assertThat(m.toBytes()).isEqualTo(Vectors.hex(key + ".bytes"));
        assertThat(Multiaddr.fromBytes(Vectors.hex(key + ".bytes")).toString()).isEqualTo(Vectors.text(key + ".text"));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "/ip4/192.0.2.42/tcp/443",
                "/dns4/example.com/tcp/80",
                "/dns6/h.example/tcp/1",
                "/dns/h.example/tcp/1",
                "/ip6/2001:db8::1/tcp/8080",
                "/ip6/2001:db8:0:1:0:0:0:1/tcp/8080",
                "/ip4/127.0.0.1/udp/4001"
            })
    void roundTrips(String text) {
        Multiaddr m = Multiaddr.parse(text);
        assertThat(Multiaddr.fromBytes(m.toBytes())).isEqualTo(m);
        assertThat(Multiaddr.parse(m.toString())).isEqualTo(m);
    }

    @Test
    void ip6TextIsCanonical() {
        assertThat(Multiaddr.parse("/ip6/2001:db8:0:1:0:0:0:1/tcp/1").toString())
                .isEqualTo("/ip6/2001:db8:0:1::1/tcp/1");
        assertThat(Multiaddr.parse("/ip6/0:0:0:0:0:0:0:0/tcp/1").toString()).isEqualTo("/ip6/::/tcp/1");
        assertThat(Multiaddr.parse("/ip6/1:0:2:0:3:0:4:0/tcp/1").toString()).isEqualTo("/ip6/1:0:2:0:3:0:4:0/tcp/1");
    }

    @Test
    void specExampleBytes() {
        assertThat(HEX.formatHex(Multiaddr.parse("/ip4/192.0.2.42/tcp/443").toBytes()))
                .isEqualTo("04c000022a0601bb");
        assertThat(HEX.formatHex(Multiaddr.parse("/dns4/example.com/tcp/80").toBytes()))
                .isEqualTo("360b6578616d706c652e636f6d060050");
    }

    @Test
    void peerIdHandling() {
        Multiaddr full = Multiaddr.parse(Vectors.text("multiaddr.text"));
        PeerId id = PeerId.parse(Vectors.text("identities.A.peerIdBase58"));
        assertThat(full.peerId()).contains(id);
        assertThat(full.withoutPeerId().toString()).isEqualTo("/ip4/127.0.0.1/tcp/4001");
        assertThat(full.withoutPeerId().withPeerId(id)).isEqualTo(full);
        assertThat(Multiaddr.parse("/ip4/127.0.0.1/tcp/4001/ipfs/" + id)).isEqualTo(full);
        assertThat(Multiaddr.parse("/ip4/127.0.0.1/tcp/4001/p2p/" + id.toCid())).isEqualTo(full);
        assertThat(full.toTcpSocketAddress()).isEqualTo(new InetSocketAddress("127.0.0.1", 4001));
        assertThat(Multiaddr.parse("/dns4/localhost/tcp/5").toTcpSocketAddress().isUnresolved())
                .isTrue();
        assertThat(Multiaddr.fromSocketAddress(new InetSocketAddress("::1", 9)).toString())
                .isEqualTo("/ip6/::1/tcp/9");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "ip4/1.2.3.4|must start with '/'",
                "/ip4/300.1.1.1/tcp/1|'300.1.1.1'",
                "/ip4/1.2.3/tcp/1|'1.2.3'",
                "/ip4/1.2.3.4/tcp/70000|'70000'",
                "/ip4/1.2.3.4/tcp/http|'http'",
                "/ip4/1.2.3.4/quic|unknown protocol 'quic'",
                "/ip4/1.2.3.4/tcp|/tcp needs a value",
                "/ip6/localhost/tcp/1|'localhost'",
                "/ip6/1:2:3/tcp/1|'1:2:3'",
                "/dns4/a b/tcp/1|'a b'",
                "/ip4/1.2.3.4/tcp/1/p2p/12D3KooWnotapeer|'12D3KooWnotapeer'"
            })
    void badTextNamesTheOffendingPart(String text, String part) {
        assertThatThrownBy(() -> Multiaddr.parse(text))
                .isInstanceOf(MultiaddrException.class)
                .hasMessageContaining(part);
    }

    @Test
    void badBinary() {
        assertThatThrownBy(() -> Multiaddr.fromBytes(HEX.parseHex("047f0000"))).hasMessageContaining("truncated /ip4");
        assertThatThrownBy(() -> Multiaddr.fromBytes(HEX.parseHex("e703")))
                .hasMessageContaining("unknown protocol code");
        assertThatThrownBy(() -> Multiaddr.fromBytes(HEX.parseHex("a50305"))).hasMessageContaining("/p2p");
        Random rnd = new Random(3);
        for (int i = 0; i < 2000; i++) {
            byte[] b = new byte[1 + rnd.nextInt(30)];
            rnd.nextBytes(b);
            try {
                Multiaddr.fromBytes(b);
            } catch (MultiaddrException expected) {
                // the only allowed failure
            }
        }
    }

    /** Found by the fuzzer: text within the character cap whose binary form is past the byte cap. */
    @Test
    void textThatEncodesPastTheBinaryCapIsRefused() {
        String fits = "/ip6/::".repeat(60); // 60 x 17 bytes = 1020
        Multiaddr a = Multiaddr.parse(fits);
        assertThat(a.toBytes()).hasSize(1020);
        assertThat(Multiaddr.fromBytes(a.toBytes())).isEqualTo(a);

        String over = "/ip6/::".repeat(61); // 427 characters, 1037 bytes
        assertThatThrownBy(() -> Multiaddr.parse(over))
                .isInstanceOf(MultiaddrException.class)
                .hasMessageContaining("longer than 1024 bytes in binary form");
    }
}
