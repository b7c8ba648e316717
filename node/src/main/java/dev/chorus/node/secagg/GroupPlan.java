package dev.chorus.node.secagg;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Who is grouped with whom in a round, and who relays each group: a pure function of the roster (the members that
 * can take part), the round's number and the consortium's seed, so that every member derives the same plan without a
 * coordinator. The roster is ordered by SHA-256("chorus/secagg/plan" || seed || round || member ID), a shuffle that
 * any implementation can reproduce, and dealt out like cards into {@code ceil(n / groupSize)} groups, whose sizes
 * then differ by at most one; each group is kept in sorted order. Groups are drawn afresh every round, so that what
 * one group averaged reaches the others at the next round.
 *
 * <p>Rounds are numbered within windows of the wall clock: round {@code r} is place {@code r mod 256} of window
 * {@code floor(r / 256)} ({@link #ROUNDS_PER_WINDOW}). A group's relay is the member at position
 * {@code (window + place) mod c} of its relay candidates, the members that relay ({@code averaging.secure_relay}),
 * in sorted order, or of the whole group when none of its members does, so the relay's role rotates from round to
 * round among the members that take it, and the first rounds of successive windows do not fall to one member. A
 * relay carries its group's traffic over its own link (every masked input in, the sum out to every member), so a
 * member behind a thin link that declines the role keeps its group's rounds from waiting on that link for all of
 * them.
 */
public final class GroupPlan {

    /**
     * The most rounds one window holds. A round takes several round trips between the relay and its members, so even
     * on loopback a window's rounds end well before this.
     */
    public static final int ROUNDS_PER_WINDOW = 256;

    private final List<List<String>> groups;

    private GroupPlan(List<List<String>> groups) {
        this.groups = groups;
    }

    /** The window that {@code round} belongs to. */
    public static long windowOf(long round) {
        return Math.floorDiv(round, ROUNDS_PER_WINDOW);
    }

    /** The place of {@code round} in its window's chain: 0 for the window's first round. */
    public static int placeOf(long round) {
        return (int) Math.floorMod(round, (long) ROUNDS_PER_WINDOW);
    }

    /** The first round of {@code window}. */
    public static long firstRound(long window) {
        return Math.multiplyExact(window, (long) ROUNDS_PER_WINDOW);
    }

    /**
     * The plan of {@code round} over {@code roster} (duplicates ignored, order irrelevant).
     *
     * @param groupSize the largest group (at least {@link SecAggSettings#MIN_GROUP})
     */
    public static GroupPlan of(List<String> roster, long round, int groupSize, long seed) {
        if (groupSize < SecAggSettings.MIN_GROUP) {
            throw new IllegalArgumentException("group size " + groupSize + " is below " + SecAggSettings.MIN_GROUP);
        }
        List<String> members = new ArrayList<>(new TreeSet<>(roster));
        Map<String, byte[]> keys = new HashMap<>();
        for (String m : members) {
            keys.put(m, rank(seed, round, m));
        }
        members.sort((a, b) -> Arrays.compareUnsigned(keys.get(a), keys.get(b)));
        int count = Math.max(1, (members.size() + groupSize - 1) / groupSize);
        List<List<String>> dealt = new ArrayList<>();
        for (int g = 0; g < count; g++) {
            dealt.add(new ArrayList<>());
        }
        for (int i = 0; i < members.size(); i++) {
            dealt.get(i % count).add(members.get(i));
        }
        List<List<String>> out = new ArrayList<>();
        for (List<String> g : dealt) {
            out.add(List.copyOf(new TreeSet<>(g)));
        }
        return new GroupPlan(List.copyOf(out));
    }

    /** Every group, each in sorted order. */
    public List<List<String>> groups() {
        return groups;
    }

    /** The group of {@code member}; empty when it is not in the roster. */
    public List<String> groupOf(String member) {
        for (List<String> g : groups) {
            if (g.contains(member)) {
                return g;
            }
        }
        return List.of();
    }

    /** The relay of {@code group} in {@code round} when every member relays. */
    public static String relayOf(List<String> group, long round) {
        return group.get((int) Math.floorMod(windowOf(round) + placeOf(round), (long) group.size()));
    }

    /**
     * The relay of {@code group} (in sorted order) in {@code round}: of the members in {@code relays}, or of the
     * whole group when none of them is.
     */
    public static String relayOf(List<String> group, long round, Set<String> relays) {
        List<String> candidates = new ArrayList<>(group.size());
        for (String m : group) {
            if (relays.contains(m)) {
                candidates.add(m);
            }
        }
        return relayOf(candidates.isEmpty() ? group : candidates, round);
    }

    private static byte[] rank(long seed, long round, String member) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update("chorus/secagg/plan".getBytes(StandardCharsets.US_ASCII));
            sha.update(ByteBuffer.allocate(16).putLong(seed).putLong(round).array());
            sha.update(member.getBytes(StandardCharsets.UTF_8));
            return sha.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }
}
