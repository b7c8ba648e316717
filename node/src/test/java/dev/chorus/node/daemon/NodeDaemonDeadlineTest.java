package dev.chorus.node.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.gossip.identity.PrivateKey;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code averaging.round_deadline_seconds} end to end: three {@code sync} daemons on loopback whose participants
 * list names a fourth node that never starts. With a one-second deadline each round closes with the three models
 * at hand and training goes on; without one, the same three wait at the first barrier for the absent node (until
 * the round timeout, set far beyond the test), which shows the test can fail.
 */
class NodeDaemonDeadlineTest {

    private static final long SEED = 20251204L;
    private static final int STARTED = 3;
    private static final int ROUNDS = 4;

    @TempDir
    Path dir;

    private final ShardedDaemons daemons = new ShardedDaemons();

    @AfterEach
    void stop() {
        daemons.close();
    }

    @Test
    void aDeadlineClosesEachRoundWithoutTheAbsentParticipantWhereTheBarrierWaits() throws Exception {
        Path shards = ShardedDaemons.writeShards(dir.resolve("shards"), "iid", STARTED, SEED);
        List<PrivateKey> keys = ShardedDaemons.keys(STARTED + 1); // the last one is the participant that never starts

        List<NodeDaemon> withDeadline = startThree(shards, keys, "deadline", "averaging.round_deadline_seconds=1");
        long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < until
                && !withDeadline.stream()
                        .allMatch(d -> d.metrics().averaging().updates().merged() >= ROUNDS * (STARTED - 1L))) {
            Thread.sleep(100);
        }
        assertThat(withDeadline.stream()
                        .mapToLong(d -> d.metrics().averaging().updates().merged()))
                .as("models merged by each node with the deadline: %s", describe(withDeadline))
                .allMatch(merged -> merged >= ROUNDS * (STARTED - 1L));
        for (NodeDaemon d : withDeadline) {
            assertThat(d.metrics().averaging().rounds()).isGreaterThanOrEqualTo(ROUNDS);
            assertThat(d.metrics().averaging().waits().roundTimeouts()).isZero();
            d.close();
        }

        List<NodeDaemon> barrier = startThree(shards, keys, "barrier", "averaging.round_deadline_seconds=0");
        NodeDaemonTest.waitFor("every node at the first barrier", Duration.ofSeconds(30), () -> barrier.stream()
                .allMatch(d -> d.metrics().averaging().rounds() >= 1));
        Thread.sleep(3000);
        for (NodeDaemon d : barrier) {
            assertThat(d.metrics().averaging().rounds())
                    .as("rounds without a deadline while a participant is absent")
                    .isEqualTo(1);
            assertThat(d.metrics().steps()).isLessThanOrEqualTo(2);
        }
    }

    private static String describe(List<NodeDaemon> nodes) {
        return nodes.stream()
                .map(d -> "steps " + d.metrics().steps() + ", " + d.metrics().averaging())
                .collect(Collectors.joining("; "));
    }

    private List<NodeDaemon> startThree(Path shards, List<PrivateKey> keys, String run, String deadline)
            throws Exception {
        List<String> overrides = List.of(
                "training.seed=" + SEED,
                "checkpoint.every_steps=1000",
                "averaging.strategy=sync",
                "averaging.every_steps=2",
                "averaging.round_timeout_seconds=600",
                ShardedDaemons.participants(keys),
                deadline);
        return daemons.startChain(dir.resolve(run), shards, keys.subList(0, STARTED), i -> overrides);
    }
}
