package dev.chorus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.host.HostConfig;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.gossip.pubsub.Pubsub;
import dev.chorus.gossip.pubsub.PubsubConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code p2p pubsub} against a real gossipsub peer on loopback, both directions. */
class P2pPubsubCommandTest {

    @Test
    void publishesStdinLinesAndPrintsReceivedMessages() throws Exception {
        Host peer = Host.start(HostConfig.defaults(PrivateKey.generate())
                        .withListenAddrs(List.of(Multiaddr.parse("/ip4/127.0.0.1/tcp/0"))))
                .get(10, TimeUnit.SECONDS);
        try (Pubsub peerPubsub = Pubsub.start(peer, PubsubConfig.defaults())) {
            List<String> received = new CopyOnWriteArrayList<>();
            peerPubsub.subscribe(
                    "chorus-test", (m, id, from) -> received.add(new String(m.dataOrEmpty(), StandardCharsets.UTF_8)));
            String dial = peer.listenAddrs().getFirst().toString();

            // Lines arrive on standard input only after the two peers have exchanged subscriptions.
            P2pPubsubCommand command = new P2pPubsubCommand();
            java.io.PipedOutputStream feed = new java.io.PipedOutputStream();
            command.input = new java.io.PipedInputStream(feed);
            StringWriter out = new StringWriter();
            CommandLine sub = Main.commandLine()
                    .getSubcommands()
                    .get("p2p")
                    .getSubcommands()
                    .get("pubsub");
            CommandLine own = new CommandLine(command);
            own.setOut(new PrintWriter(out, true));
            own.setErr(new PrintWriter(new StringWriter(), true));
            assertThat(sub).isNotNull();
            Thread run = Thread.ofPlatform()
                    .start(() -> own.execute("--topic", "chorus-test", "--dial", dial, "--duration", "8"));

            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(6);
            while (System.nanoTime() < deadline
                    && peerPubsub
                            .topicPeers("chorus-test")
                            .get(5, TimeUnit.SECONDS)
                            .isEmpty()) {
                Thread.sleep(100);
            }
            feed.write("hello from stdin\n".getBytes(StandardCharsets.UTF_8));
            feed.flush();
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (System.nanoTime() < deadline && received.isEmpty()) {
                Thread.sleep(50);
            }
            peerPubsub
                    .publish("chorus-test", "hello from the peer".getBytes(StandardCharsets.UTF_8))
                    .get(5, TimeUnit.SECONDS);
            run.join(TimeUnit.SECONDS.toMillis(15));
            feed.close();

            assertThat(received).containsExactly("hello from stdin");
            List<String> lines = out.toString().lines().toList();
            assertThat(lines.getFirst()).startsWith("{\"event\":\"listening\",\"peerId\":\"12D3KooW");
            assertThat(lines)
                    .anyMatch(l -> l.startsWith("{\"event\":\"message\",\"topic\":\"chorus-test\",\"from\":\""
                                    + peer.peerId().toBase58() + "\",\"seqno\":\"")
                            && l.endsWith("\"dataHex\":\""
                                    + java.util.HexFormat.of()
                                            .formatHex("hello from the peer".getBytes(StandardCharsets.UTF_8))
                                    + "\"}"));
            assertThat(lines.getLast()).isEqualTo("{\"event\":\"stopped\"}");
        } finally {
            peer.close();
        }
    }

    @Test
    void dialWithoutPeerIdIsAUsageError() {
        CliRun run = CliRun.of("p2p", "pubsub", "--topic", "t", "--dial", "/ip4/127.0.0.1/tcp/1", "--duration", "1");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("must end in /p2p/PEER_ID");
    }
}
