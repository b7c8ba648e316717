package dev.chorus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Every command takes the options of the CLI option groups from the group's one declaration, and keeps its own
 * default for them where it always had another.
 */
class OptionGroupsTest {

    /** The group that declares each option. */
    private static final Map<String, Class<?>> GROUP = new LinkedHashMap<>();

    static {
        for (String name : List.of("--data", "--label", "--positive", "--drop")) {
            GROUP.put(name, DataSourceOptions.class);
        }
        for (String name : List.of("--format", "--idx-prefix", "--categorical", "--missing")) {
            GROUP.put(name, DataOptions.class);
        }
        GROUP.put("--model", ModelOptions.class);
        GROUP.put("--optimizer", ModelOptions.class);
        GROUP.put("--epochs", TrainingOptions.class);
        GROUP.put("--batch", BatchOptions.class);
        GROUP.put("--seed", SeedOptions.class);
        GROUP.put("--backend", BackendOptions.class);
        GROUP.put("--threads", ThreadOptions.class);
    }

    /**
     * The options that share a group option's name but not its type or meaning, by command: lists of values to
     * time, a payload's seed, and the node.yaml values that init writes.
     */
    private static final Map<String, List<String>> OWN = Map.of(
            "chorus bench train", List.of("--batch", "--threads"),
            "chorus bench gemm", List.of("--threads"),
            "chorus p2p send", List.of("--seed"),
            "chorus init", List.of("--data", "--label", "--positive", "--drop"));

    @Test
    void everyCommandTakesTheGroupOptionsFromTheirGroup() {
        List<String> checked = new ArrayList<>();
        for (CommandLine cl : all()) {
            String command = cl.getCommandSpec().qualifiedName();
            for (OptionSpec option : cl.getCommandSpec().options()) {
                Class<?> group = GROUP.get(option.longestName());
                if (group == null) {
                    continue;
                }
                Class<?> declaring = ((Field) option.userObject()).getDeclaringClass();
                if (OWN.getOrDefault(command, List.of()).contains(option.longestName())) {
                    assertThat(declaring)
                            .as(command + " " + option.longestName())
                            .isNotEqualTo(group);
                } else {
                    assertThat(declaring)
                            .as(command + " " + option.longestName())
                            .isEqualTo(group);
                }
                checked.add(command + " " + option.longestName());
            }
        }
        assertThat(checked)
                .contains(
                        "chorus train --data",
                        "chorus testnet --data",
                        "chorus testnet --idx-prefix",
                        "chorus testnet up --data",
                        "chorus testnet compose --drop",
                        "chorus partition --seed",
                        "chorus demo --seed",
                        "chorus testnet --backend",
                        "chorus bench gemm --backend",
                        "chorus bench train --model");
    }

    /** The defaults that differ by command are passed to the group's constructor; the others are the group's. */
    @Test
    void eachCommandKeepsItsDefaults() {
        assertThat(defaultOf("testnet", "--backend")).isEqualTo("cpu");
        assertThat(defaultOf("bench gemm", "--backend")).isEqualTo("cpu");
        assertThat(defaultOf("train", "--backend")).isEqualTo("auto");
        assertThat(defaultOf("bench cv", "--backend")).isEqualTo("auto");
        assertThat(defaultOf("bench train", "--backend")).isEqualTo("auto");
        assertThat(defaultOf("bench train", "--model")).isEqualTo("mlp:256,256");
        assertThat(defaultOf("train", "--model")).isEqualTo("logreg");
        assertThat(defaultOf("testnet", "--model")).isEqualTo("logreg");
        for (String command : List.of(
                "train", "partition", "bench train", "bench cv", "testnet", "testnet up", "testnet compose", "demo")) {
            assertThat(defaultOf(command, "--seed")).as(command).isEqualTo("42");
        }
        assertThat(defaultOf("testnet", "--batch")).isEqualTo("32");
        assertThat(defaultOf("train", "--batch")).isEqualTo("32");
        assertThat(defaultOf("train", "--epochs")).isEqualTo("20");
        assertThat(defaultOf("train", "--threads")).isEqualTo("0");
    }

    private static String defaultOf(String command, String option) {
        CommandLine cl = Main.commandLine();
        for (String name : command.split(" ")) {
            cl = cl.getSubcommands().get(name);
        }
        OptionSpec spec = cl.getCommandSpec().findOption(option);
        return String.valueOf(spec.initialValue());
    }

    private static List<CommandLine> all() {
        List<CommandLine> out = new ArrayList<>();
        collect(Main.commandLine(), out);
        return out;
    }

    private static void collect(CommandLine cl, List<CommandLine> out) {
        out.add(cl);
        for (CommandLine sub : cl.getSubcommands().values()) {
            if (!out.contains(sub)) {
                collect(sub, out);
            }
        }
    }
}
