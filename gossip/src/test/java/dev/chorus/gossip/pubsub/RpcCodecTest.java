package dev.chorus.gossip.pubsub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.gossip.Vectors;
import dev.chorus.gossip.identity.PrivateKey;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The pubsub RPC codec and signing against the js-libp2p vectors, plus the decoding limits. */
class RpcCodecTest {
    private static final String TOPIC = Vectors.text("gossipsub.topic");
    private final RpcCodec codec = new RpcCodec(RpcLimits.DEFAULTS);

    private static PrivateKey authorA() {
        return PrivateKey.fromSeed(Vectors.hex("identities.A.seed"));
    }

    private static PubsubMessage vectorMessage(boolean signed) {
        PrivateKey a = authorA();
        byte[] data = Vectors.text("gossipsub.dataUtf8").getBytes(StandardCharsets.UTF_8);
        byte[] seqno = Vectors.hex("gossipsub.seqno");
        PubsubMessage m = new PubsubMessage(a.peerId().toBytes(), data, seqno, TOPIC, null, null);
        if (!signed) {
            return m;
        }
        byte[] sig = a.sign(SignaturePolicy.signingBytes(m));
        return new PubsubMessage(
                m.from(), data, seqno, TOPIC, sig, a.publicKey().toProtobuf());
    }

    @Test
    void messageEncodingAndSignatureMatchJs() {
        PubsubMessage unsigned = vectorMessage(false);
        assertThat(unsigned.encodeUnsigned()).isEqualTo(Vectors.hex("gossipsub.messageWithoutSignatureAndKey"));
        assertThat(SignaturePolicy.signingBytes(unsigned)).isEqualTo(Vectors.hex("gossipsub.signingBytes"));
        PubsubMessage signed = vectorMessage(true);
        assertThat(signed.signature()).isEqualTo(Vectors.hex("gossipsub.signature"));
        assertThat(signed.encode()).isEqualTo(Vectors.hex("gossipsub.signedMessage"));
        assertThat(SignaturePolicy.STRICT_SIGN.check(signed)).isNull();
    }

    /**
     * Messages with and without each field, payloads up to 300 KiB, a topic with multi-byte characters: the counted
     * sizes are the encoded ones, an RPC of several messages decodes to them, and a signed one checks.
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "seed {0}")
    @org.junit.jupiter.params.provider.ValueSource(longs = {1, 2, 3, 4, 5, 6})
    void countedSizesAreTheEncodedOnesAndRpcsOfSeveralMessagesRoundTrip(long seed) {
        Random r = new Random(seed);
        PrivateKey key = PrivateKey.generate(new java.security.SecureRandom(new byte[] {(byte) seed}));
        List<PubsubMessage> messages = new java.util.ArrayList<>();
        for (int i = 0; i < 3; i++) {
            byte[] data = new byte[r.nextBoolean() ? r.nextInt(300 * 1024) : r.nextInt(50)];
            r.nextBytes(data);
            String topic = "t/" + seed + "/\u00e9\u4e2d/" + i;
            PubsubMessage m = r.nextInt(3) == 0
                    ? new PubsubMessage(null, r.nextBoolean() ? data : null, null, topic, null, null)
                    : SignaturePolicy.STRICT_SIGN.author(key, topic, data, r);
            assertThat(m.size()).isEqualTo(m.encode().length);
            assertThat(RpcCodec.sizeOfPublish(m)).isEqualTo(RpcCodec.encode(Rpc.ofMessages(List.of(m))).length);
            if (m.signature() != null) {
                assertThat(SignaturePolicy.STRICT_SIGN.check(m)).isNull();
            }
            messages.add(m);
        }
        Rpc back = new RpcCodec(new RpcLimits(4 << 20, 1024, 1024, RpcLimits.DEFAULTS.control(), 1024, 256))
                .decode(RpcCodec.encode(Rpc.ofMessages(messages)));
        Rpc mixed = new Rpc(
                List.of(new Rpc.SubOpts(true, "a"), new Rpc.SubOpts(false, "b/" + seed)),
                messages.subList(0, 1 + r.nextInt(3)),
                control(List.of(), List.of(), List.of(new Rpc.Graft("g")), List.of(new Rpc.Prune("p", List.of(), 60))));
        assertThat(RpcCodec.encodeFramed(mixed))
                .isEqualTo(dev.chorus.gossip.encoding.LengthPrefixed.encode(RpcCodec.encode(mixed)));
        assertThat(back.messages()).hasSize(3);
        for (int i = 0; i < 3; i++) {
            assertThat(back.messages().get(i).encode())
                    .isEqualTo(messages.get(i).encode());
        }
    }

    @Test
    void rpcEncodingsMatchJs() {
        assertThat(RpcCodec.encode(Rpc.ofMessages(List.of(vectorMessage(true)))))
                .isEqualTo(Vectors.hex("gossipsub.rpcPublish"));
        assertThat(RpcCodec.encode(Rpc.ofSubscriptions(List.of(new Rpc.SubOpts(true, TOPIC)))))
                .isEqualTo(Vectors.hex("gossipsub.rpcSubscribe"));
        assertThat(RpcCodec.encode(
                        Rpc.ofControl(control(List.of(), List.of(), List.of(new Rpc.Graft(TOPIC)), List.of()))))
                .isEqualTo(Vectors.hex("gossipsub.rpcGraft"));
        assertThat(RpcCodec.encode(Rpc.ofControl(
                        control(List.of(), List.of(), List.of(), List.of(new Rpc.Prune(TOPIC, List.of(), 60))))))
                .isEqualTo(Vectors.hex("gossipsub.rpcPruneBackoff60"));
        MessageId id = MessageIdFunction.FROM_AND_SEQNO.apply(vectorMessage(false));
        assertThat(id.toBytes()).isEqualTo(Vectors.hex("gossipsub.msgIdGoDefault"));
        assertThat(RpcCodec.encode(Rpc.ofControl(control(
                        List.of(new Rpc.IHave(TOPIC, List.of(MessageId.of(Vectors.hex("gossipsub.msgIdJsDefault"))))),
                        List.of(),
                        List.of(),
                        List.of()))))
                .isEqualTo(Vectors.hex("gossipsub.rpcIHave"));
        assertThat(MessageIdFunction.SHA256_OF_DATA.apply(vectorMessage(false)).toBytes())
                .isEqualTo(Vectors.hex("gossipsub.msgIdSha256"));
    }

    @Test
    void decodesWhatItEncodes() {
        Rpc rpc = new Rpc(
                List.of(new Rpc.SubOpts(true, "a"), new Rpc.SubOpts(false, "b")),
                List.of(vectorMessage(true)),
                new Rpc.Control(
                        List.of(new Rpc.IHave("a", List.of(MessageId.of(new byte[] {1, 2})))),
                        List.of(new Rpc.IWant(List.of(MessageId.of(new byte[] {3})))),
                        List.of(new Rpc.Graft("a")),
                        List.of(new Rpc.Prune("b", List.of(new Rpc.PeerInfo(new byte[] {9}, null)), 10)),
                        List.of(new Rpc.IDontWant(List.of(MessageId.of(new byte[] {4}))))));
        Rpc back = codec.decode(RpcCodec.encode(rpc));
        assertThat(back.subscriptions()).isEqualTo(rpc.subscriptions());
        assertThat(back.messages()).hasSize(1);
        assertThat(back.messages().get(0).encode())
                .isEqualTo(vectorMessage(true).encode());
        assertThat(back.control().ihave().get(0).messageIds()).containsExactly(MessageId.of(new byte[] {1, 2}));
        assertThat(back.control().iwant().get(0).messageIds()).containsExactly(MessageId.of(new byte[] {3}));
        assertThat(back.control().graft()).containsExactly(new Rpc.Graft("a"));
        assertThat(back.control().prune().get(0).backoffSeconds()).isEqualTo(10);
        assertThat(back.control().prune().get(0).peers().get(0).peerId()).containsExactly(9);
        assertThat(back.control().idontwant().get(0).messageIds()).containsExactly(MessageId.of(new byte[] {4}));
        // A PRUNE without backoff (v1.0) decodes as -1.
        Rpc v10 = codec.decode(RpcCodec.encode(
                Rpc.ofControl(control(List.of(), List.of(), List.of(), List.of(new Rpc.Prune("t", List.of(), -1))))));
        assertThat(v10.control().prune().get(0).backoffSeconds()).isEqualTo(-1);
    }

    @Test
    void emptyDataStaysPresentSoTheSignatureHolds() {
        PrivateKey k = PrivateKey.generate(new java.security.SecureRandom(new byte[] {1}));
        PubsubMessage m = SignaturePolicy.STRICT_SIGN.author(k, "t", new byte[0], new Random(1));
        PubsubMessage back = codec.decodeMessage(m.encode());
        assertThat(back.data()).isEmpty();
        assertThat(SignaturePolicy.STRICT_SIGN.check(back)).isNull();
    }

    @Test
    void strictSignRejectsTamperedOrIncompleteMessages() {
        PubsubMessage good = vectorMessage(true);
        byte[] otherData = "hello gossipsuB".getBytes(StandardCharsets.UTF_8);
        assertThat(SignaturePolicy.STRICT_SIGN.check(
                        new PubsubMessage(good.from(), otherData, good.seqno(), TOPIC, good.signature(), good.key())))
                .isEqualTo("bad signature");
        assertThat(SignaturePolicy.STRICT_SIGN.check(
                        new PubsubMessage(good.from(), good.data(), good.seqno(), TOPIC, null, good.key())))
                .contains("lacks");
        assertThat(SignaturePolicy.STRICT_SIGN.check(
                        new PubsubMessage(good.from(), good.data(), new byte[4], TOPIC, good.signature(), good.key())))
                .contains("seqno");
        byte[] otherKey = PrivateKey.fromSeed(Vectors.hex("identities.B.seed"))
                .publicKey()
                .toProtobuf();
        assertThat(SignaturePolicy.STRICT_SIGN.check(
                        new PubsubMessage(good.from(), good.data(), good.seqno(), TOPIC, good.signature(), otherKey)))
                .isEqualTo("key does not match from");
        // Without the key, the Ed25519 key inlined in the peer ID verifies.
        assertThat(SignaturePolicy.STRICT_SIGN.check(
                        new PubsubMessage(good.from(), good.data(), good.seqno(), TOPIC, good.signature(), null)))
                .isNull();
        assertThat(SignaturePolicy.STRICT_NO_SIGN.check(good)).isNotNull();
        assertThat(SignaturePolicy.STRICT_NO_SIGN.check(new PubsubMessage(null, good.data(), null, TOPIC, null, null)))
                .isNull();
    }

    @Test
    void limitsAreEnforcedWhileDecoding() {
        RpcCodec small = new RpcCodec(new RpcLimits(4096, 2, 2, new RpcLimits.Control(3, 3, 2, 2, 1, 3), 16, 8));
        assertThatThrownBy(() -> small.decode(new byte[4097])).isInstanceOf(RpcLimitException.class);
        Rpc threeSubs = Rpc.ofSubscriptions(
                List.of(new Rpc.SubOpts(true, "a"), new Rpc.SubOpts(true, "b"), new Rpc.SubOpts(true, "c")));
        assertThatThrownBy(() -> small.decode(RpcCodec.encode(threeSubs)))
                .isInstanceOf(RpcLimitException.class)
                .hasMessageContaining("subscriptions");
        PubsubMessage m = new PubsubMessage(null, new byte[1], null, "t", null, null);
        assertThatThrownBy(() -> small.decode(RpcCodec.encode(Rpc.ofMessages(List.of(m, m, m)))))
                .isInstanceOf(RpcLimitException.class);
        List<MessageId> four = List.of(
                MessageId.of(new byte[] {1}),
                MessageId.of(new byte[] {2}),
                MessageId.of(new byte[] {3}),
                MessageId.of(new byte[] {4}));
        assertThatThrownBy(() -> small.decode(RpcCodec.encode(
                        Rpc.ofControl(control(List.of(new Rpc.IHave("t", four)), List.of(), List.of(), List.of())))))
                .isInstanceOf(RpcLimitException.class)
                .hasMessageContaining("IHAVE");
        assertThatThrownBy(() -> small.decode(RpcCodec.encode(
                        Rpc.ofControl(control(List.of(), List.of(new Rpc.IWant(four)), List.of(), List.of())))))
                .isInstanceOf(RpcLimitException.class)
                .hasMessageContaining("IWANT");
        // IHAVE ids are counted over all IHAVE entries of one RPC.
        List<Rpc.IHave> spread =
                List.of(new Rpc.IHave("t", four.subList(0, 2)), new Rpc.IHave("u", four.subList(2, 4)));
        assertThatThrownBy(() ->
                        small.decode(RpcCodec.encode(Rpc.ofControl(control(spread, List.of(), List.of(), List.of())))))
                .isInstanceOf(RpcLimitException.class);
        assertThatThrownBy(() -> small.decode(
                        RpcCodec.encode(Rpc.ofSubscriptions(List.of(new Rpc.SubOpts(true, "x".repeat(17)))))))
                .isInstanceOf(RpcLimitException.class)
                .hasMessageContaining("topic");
        assertThatThrownBy(() -> small.decode(RpcCodec.encode(Rpc.ofControl(control(
                        List.of(), List.of(new Rpc.IWant(List.of(MessageId.of(new byte[9])))), List.of(), List.of())))))
                .isInstanceOf(RpcLimitException.class)
                .hasMessageContaining("message id");
    }

    @Test
    void malformedInputIsRejectedNotThrownAsIndexErrors() {
        Random r = new Random(42);
        byte[] valid = Vectors.hex("gossipsub.rpcPublish");
        for (int i = 0; i < 2000; i++) {
            byte[] b = valid.clone();
            b[r.nextInt(b.length)] = (byte) r.nextInt(256);
            byte[] cut = java.util.Arrays.copyOf(b, r.nextInt(b.length + 1));
            try {
                codec.decode(cut);
            } catch (InvalidRpcException expected) {
                // fine
            }
        }
        assertThatThrownBy(() -> codec.decode(HexFormat.of().parseHex("12ff"))).isInstanceOf(InvalidRpcException.class);
        // A message without topic is invalid.
        assertThatThrownBy(() -> codec.decode(HexFormat.of().parseHex("12021200")))
                .isInstanceOf(InvalidRpcException.class);
    }

    @Test
    void jsonEventLine() {
        String line = vectorMessage(true).toJsonEvent();
        assertThat(line)
                .isEqualTo("{\"event\":\"message\",\"topic\":\"p2pl/vectors/1\",\"from\":\""
                        + authorA().peerId().toBase58()
                        + "\",\"seqno\":\"0000000000000001\",\"dataHex\":\"68656c6c6f20676f73736970737562\"}");
    }

    static Rpc.Control control(
            List<Rpc.IHave> ihave, List<Rpc.IWant> iwant, List<Rpc.Graft> graft, List<Rpc.Prune> prune) {
        return new Rpc.Control(ihave, iwant, graft, prune, List.of());
    }
}
