package dev.chorus.testnet;

import dev.chorus.node.secagg.SecAggCounters;
import dev.chorus.node.secagg.SecureWire;
import dev.chorus.privacy.secagg.SecAggMessage;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;

/**
 * What a run's relays saw of the members' inputs, checked as they arrive: each masked input's words should be
 * uniform in Z_2^b (b = 32 or 16, the round's word) whatever the member's parameters. The check is Pearson's
 * chi-square of the words' top four bits
 * against the uniform distribution (15 degrees of freedom), failed above its 99.9th percentile: about one masked input
 * in a thousand fails by chance (one and a half for inputs of a few dozen words, whose statistic is coarser), and an
 * input sent unmasked (quantized parameters cluster near the middle of the range) fails every time.
 */
final class SecureRoundsView implements BiConsumer<String, byte[]> {

    /** The chi-square with 15 degrees of freedom that chance exceeds with probability 0.001. */
    static final double CHI_SQUARE_999 = 37.70;

    private final AtomicLong checked = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();

    @Override
    public void accept(String peer, byte[] frame) {
        if (!(SecureWire.decode(frame, SecAggMessage.MAX_MEMBERS) instanceof SecureWire.Round r)) {
            return;
        }
        if (SecAggMessage.decode(r.message()) instanceof SecAggMessage.MaskedInput m) {
            checked.incrementAndGet();
            if (chiSquareTopBits(m.masked(), m.wordBits()) > CHI_SQUARE_999) {
                failed.incrementAndGet();
            }
        }
    }

    /**
     * Pearson's chi-square of the top four bits of the words against uniform: of every word but the last as a
     * {@code wordBits}-bit word, of the last (the sample count's, always 32-bit) as a 32-bit one.
     */
    static double chiSquareTopBits(int[] words, int wordBits) {
        int[] counts = new int[16];
        for (int i = 0; i < words.length; i++) {
            int bits = i == words.length - 1 ? 32 : wordBits;
            counts[(words[i] >>> (bits - 4)) & 0xF]++;
        }
        double expected = words.length / 16.0;
        double chi = 0;
        for (int c : counts) {
            chi += (c - expected) * (c - expected) / expected;
        }
        return chi;
    }

    /**
     * The run's summary over every node's counters, in node order (empty for a node without group rounds), and this
     * view; {@code relayedOnSlowLinks}: the rounds relayed by the nodes on slow links.
     */
    TestnetRun.SecureRounds summary(List<Optional<SecAggCounters>> nodes, int dimension, long relayedOnSlowLinks) {
        long completed = 0, abandoned = 0, cancelled = 0, recovered = 0, joined = 0, memberBytes = 0, relayBytes = 0;
        long relayMillis = 0, injected = 0, declines = 0;
        long[] sums = new long[nodes.size()];
        long[] unanswered = new long[nodes.size()];
        for (int i = 0; i < nodes.size(); i++) {
            if (nodes.get(i).isEmpty()) {
                continue;
            }
            SecAggCounters c = nodes.get(i).get();
            sums[i] = c.memberCompleted();
            unanswered[i] = c.unanswered();
            completed += c.relayCompleted();
            abandoned += c.relayAbandoned();
            cancelled += c.relayCancelled();
            recovered += c.dropoutsRecovered();
            joined += c.joined();
            memberBytes += c.bytesSentAsMember();
            relayBytes += c.bytesSentAsRelay();
            relayMillis += c.relayMillis();
            injected += c.injectedDropouts();
            declines += c.relayDeclines();
        }
        double plain = 4.0 * dimension;
        double perMember = joined == 0 ? 0 : memberBytes / (double) joined / plain;
        double perRelay = completed + abandoned == 0 ? 0 : relayBytes / (double) (completed + abandoned) / plain;
        return new TestnetRun.SecureRounds(
                new long[] {
                    completed,
                    abandoned,
                    cancelled,
                    recovered,
                    joined,
                    relayMillis,
                    injected,
                    relayedOnSlowLinks,
                    declines
                },
                perMember,
                perRelay,
                checked.get(),
                failed.get(),
                sums,
                unanswered);
    }
}
