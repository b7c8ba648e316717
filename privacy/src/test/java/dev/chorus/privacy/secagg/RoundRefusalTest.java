package dev.chorus.privacy.secagg;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** Messages for another round, from non-members, duplicated, out of phase or malformed are refused with a reason. */
class RoundRefusalTest {

    private static String refusedByRelay(RelayRound relay, SecAggMessage m) {
        return assertThrows(RefusedMessageException.class, () -> relay.receive(m.encode()))
                .getMessage();
    }

    @Test
    void theRelayRefusesWithAReasonAndCarriesOn() {
        RoundNetwork net = new RoundNetwork(5, -1, 8, 42);
        List<SecAggMessage> first = net.members.get(0).drainOutbox();
        SecAggMessage.Advertise ad = (SecAggMessage.Advertise) first.get(0);
        net.relay.receive(ad.encode());
        assertTrue(refusedByRelay(net.relay, ad).contains("duplicate"));
        SecAggMessage.Advertise otherRound =
                new SecAggMessage.Advertise(new byte[] {1, 2}, 1, ad.maskKey(), ad.shareKey(), ad.signature());
        assertTrue(refusedByRelay(net.relay, otherRound).contains("round 0102"));
        SecAggMessage.Advertise stranger =
                new SecAggMessage.Advertise(ad.roundId(), 5, ad.maskKey(), ad.shareKey(), ad.signature());
        assertTrue(refusedByRelay(net.relay, stranger).contains("not in the group"));
        SecAggMessage.Advertise stolen =
                new SecAggMessage.Advertise(ad.roundId(), 1, ad.maskKey(), ad.shareKey(), ad.signature());
        assertTrue(refusedByRelay(net.relay, stolen).contains("signature"));
        SecAggMessage early = new SecAggMessage.MaskedInput(ad.roundId(), 1, new int[9]);
        assertTrue(refusedByRelay(net.relay, early).contains("phase"));
        SecAggMessage wrongWay = new SecAggMessage.Abort(ad.roundId(), "x");
        assertTrue(refusedByRelay(net.relay, wrongWay).contains("does not take"));
        String malformed = assertThrows(RefusedMessageException.class, () -> net.relay.receive(new byte[] {1}))
                .getMessage();
        assertTrue(malformed.startsWith("malformed message"), malformed);
        // The refusals changed nothing: the round completes with everyone.
        net.emitted.get(0).addAll(first);
        net.run();
        assertArrayEquals(net.plainSum(new TreeSet<>(Set.of(0, 1, 2, 3, 4))), net.result.sum());
    }

    @Test
    void aMemberRefusesOutOfPhaseAndForeignMessages() {
        RoundNetwork net = new RoundNetwork(4, -1, 8, 7);
        MemberRound member = net.members.get(1);
        byte[] roundId = net.config.roundId();
        String early = assertThrows(
                        RefusedMessageException.class,
                        () -> member.receive(new SecAggMessage.SurvivorSet(roundId, new int[] {0, 1, 2}).encode()))
                .getMessage();
        assertTrue(early.contains("phase"), early);
        String foreign = assertThrows(
                        RefusedMessageException.class,
                        () -> member.receive(new SecAggMessage.Abort(new byte[] {9}, "x").encode()))
                .getMessage();
        assertTrue(foreign.contains("round 09"), foreign);
        String wrongWay = assertThrows(
                        RefusedMessageException.class,
                        () -> member.receive(new SecAggMessage.MaskedInput(roundId, 0, new int[9]).encode()))
                .getMessage();
        assertTrue(wrongWay.contains("does not take"), wrongWay);
    }

    @Test
    void aMemberTakesADecodedSumOnlyWhenItAwaitsTheSumAndItFits() {
        RoundNetwork net = new RoundNetwork(4, -1, 8, 7);
        MemberRound member = net.members.get(1);
        float[] sum = new float[net.config.dimension()];
        String early = assertThrows(RefusedMessageException.class, () -> member.acceptSum(sum, 10, 4))
                .getMessage();
        assertTrue(early.contains("before the unmasking"), early);
        assertTrue(member.outcome().isEmpty());
    }

    @Test
    void aMemberThatHearsNothingAbandonsAtItsDeadline() {
        RoundNetwork net = new RoundNetwork(4, -1, 8, 9);
        MemberRound member = net.members.get(0);
        net.clock.advance(RoundNetwork.TIMEOUT);
        member.tick();
        assertTrue(member.outcome().isEmpty());
        net.clock.advance(RoundNetwork.TIMEOUT);
        member.tick();
        RoundOutcome.Abandoned abandoned =
                assertInstanceOf(RoundOutcome.Abandoned.class, member.outcome().get());
        assertTrue(abandoned.reason().contains("deadline"), abandoned.reason());
    }

    @Test
    void aThresholdOfHalfTheDegreeOrLessIsRefused() {
        // n = 6 has degree 5: t = 2 would let a relay that claims different survivors gather t shares of both
        // secrets of a member from its five neighbours.
        SecAggException e = assertThrows(SecAggException.class, () -> new RoundNetwork(6, 2, 8, 1));
        assertTrue(e.getMessage().contains("half the degree"), e.getMessage());
        assertThrows(SecAggException.class, () -> new RoundNetwork(6, 6, 8, 1));
    }

    @Test
    void tooFewMembersAbandonsEveryone() {
        RoundNetwork net = new RoundNetwork(5, 3, 8, 11);
        for (int u = 0; u < 3; u++) {
            net.dropPhase[u] = 2;
        }
        net.run();
        RoundOutcome.Abandoned relay = assertInstanceOf(
                RoundOutcome.Abandoned.class, net.relay.outcome().get());
        assertTrue(relay.reason().contains("masked inputs"), relay.reason());
        for (MemberRound m : net.members) {
            assertInstanceOf(RoundOutcome.Abandoned.class, m.outcome().get());
        }
        for (int u = 0; u < 5; u++) {
            assertEquals(false, net.emittedPhase(u, 3));
        }
    }
}
