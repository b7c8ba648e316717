package dev.chorus.node.secagg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Seeded properties of the plan: a partition, balanced, the same for every member, rotating its relays. */
class GroupPlanTest {

    private static List<String> roster(int n) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add("peer-" + i);
        }
        return out;
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void partitionsTheRosterIntoBalancedGroupsThatEveryMemberDerivesAlike(long seed) {
        Random r = new Random(seed);
        int n = 1 + r.nextInt(60);
        int size = 3 + r.nextInt(14);
        long round = r.nextLong();
        List<String> roster = roster(n);
        GroupPlan plan = GroupPlan.of(roster, round, size, seed);

        List<String> shuffled = new ArrayList<>(roster);
        Collections.shuffle(shuffled, r);
        shuffled.add(shuffled.get(0)); // a duplicate changes nothing
        assertThat(GroupPlan.of(shuffled, round, size, seed).groups()).isEqualTo(plan.groups());

        Set<String> seen = new HashSet<>();
        int smallest = Integer.MAX_VALUE;
        int largest = 0;
        for (List<String> g : plan.groups()) {
            assertThat(g).isSorted();
            assertThat(g.size()).isLessThanOrEqualTo(size);
            for (String m : g) {
                assertThat(seen.add(m)).as("%s in one group only", m).isTrue();
                assertThat(plan.groupOf(m)).isEqualTo(g);
            }
            smallest = Math.min(smallest, g.size());
            largest = Math.max(largest, g.size());
        }
        assertThat(seen).containsExactlyInAnyOrderElementsOf(roster);
        assertThat(largest - smallest).isLessThanOrEqualTo(1);
        assertThat(plan.groups()).hasSize((n + size - 1) / size);
        assertThat(plan.groupOf("stranger")).isEmpty();
    }

    @Test
    void groupsAndRelaysChangeFromRoundToRound() {
        List<String> roster = roster(16);
        // Rounds within one window and across windows alike.
        for (long first : new long[] {0, GroupPlan.firstRound(3), GroupPlan.firstRound(123_456_789L)}) {
            Set<List<String>> firstGroups = new HashSet<>();
            Set<String> relaysOfPeer0 = new HashSet<>();
            for (long round = first; round < first + 40; round++) {
                GroupPlan plan = GroupPlan.of(roster, round, 8, 99);
                firstGroups.add(plan.groupOf("peer-0"));
                relaysOfPeer0.add(GroupPlan.relayOf(plan.groupOf("peer-0"), round));
            }
            assertThat(firstGroups.size()).isGreaterThan(20);
            assertThat(relaysOfPeer0.size()).isGreaterThan(8);
        }
        assertThat(GroupPlan.of(roster, 5, 8, 1).groups())
                .isNotEqualTo(GroupPlan.of(roster, 5, 8, 2).groups());
    }

    @Test
    void roundsAreNumberedWithinWindowsAndTheRelayRotatesWithinAndAcrossThem() {
        List<String> group = List.of("a", "b", "c", "d");
        for (long window : new long[] {0, 1, 7, 123_456_789_012L}) {
            long first = GroupPlan.firstRound(window);
            Set<String> relays = new HashSet<>();
            for (int place = 0; place < group.size(); place++) {
                long round = first + place;
                assertThat(GroupPlan.windowOf(round)).isEqualTo(window);
                assertThat(GroupPlan.placeOf(round)).isEqualTo(place);
                relays.add(GroupPlan.relayOf(group, round));
            }
            assertThat(relays).as("a window's first rounds").containsExactlyInAnyOrderElementsOf(group);
            long next = first + GroupPlan.ROUNDS_PER_WINDOW;
            assertThat(GroupPlan.windowOf(next)).isEqualTo(window + 1);
            assertThat(GroupPlan.placeOf(next)).isZero();
        }
        // A group of four runs only the first round of each window (its rounds outlast the window): the relay of
        // the first rounds still rotates, though 256 is a multiple of four.
        Set<String> firstRelays = new HashSet<>();
        for (long window = 10; window < 14; window++) {
            firstRelays.add(GroupPlan.relayOf(group, GroupPlan.firstRound(window)));
        }
        assertThat(firstRelays).containsExactlyInAnyOrderElementsOf(group);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6})
    void theRelayIsAlwaysOneThatTakesTheRoleAndEachOfThemTakesItInTurn(long seed) {
        Random r = new Random(seed);
        List<String> roster = roster(16);
        Set<String> relays = new HashSet<>();
        for (String m : roster) {
            if (r.nextDouble() < 0.5) {
                relays.add(m);
            }
        }
        Set<String> relayedSomething = new HashSet<>();
        for (long step = 0; step < 200; step++) {
            // Rounds of many windows, at several places in each.
            long round = GroupPlan.firstRound(step) + step % 5;
            for (List<String> g : GroupPlan.of(roster, round, 8, seed).groups()) {
                String relay = GroupPlan.relayOf(g, round, relays);
                boolean anyRelays = g.stream().anyMatch(relays::contains);
                assertThat(g).contains(relay);
                // Only a group with no member taking the role falls back to one that declines it.
                assertThat(relays.contains(relay)).isEqualTo(anyRelays);
                relayedSomething.add(relay);
                assertThat(GroupPlan.relayOf(g, round, relays))
                        .as("every member derives the same relay")
                        .isEqualTo(relay);
            }
        }
        assertThat(relayedSomething)
                .as("every member that takes the role gets its turns")
                .containsAll(relays);
    }

    @Test
    void withEveryMemberRelayingTheRelayIsTheRotationOverTheWholeGroup() {
        List<String> group = List.of("a", "b", "c", "d");
        for (long round = 0; round < 9; round++) {
            assertThat(GroupPlan.relayOf(group, round, Set.copyOf(group))).isEqualTo(GroupPlan.relayOf(group, round));
        }
        assertThat(GroupPlan.relayOf(group, 5, Set.of("c", "a"))).isEqualTo("c");
        assertThat(GroupPlan.relayOf(group, 6, Set.of("c", "a"))).isEqualTo("a");
        assertThat(GroupPlan.relayOf(group, 6, Set.of())).isEqualTo("c");
    }

    @Test
    void refusesGroupsOfFewerThanThree() {
        assertThatThrownBy(() -> GroupPlan.of(roster(5), 1, 2, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("below 3");
    }
}
