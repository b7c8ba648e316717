package dev.chorus.cli;

import dev.chorus.gossip.identity.KeyFile;
import dev.chorus.learning.data.AtomicFile;
import dev.chorus.node.config.ConfigDocs;
import dev.chorus.node.config.ConfigException;
import dev.chorus.node.config.ConfigLoader;
import dev.chorus.node.config.ConfigSchema;
import dev.chorus.node.config.NodeConfig;
import dev.chorus.node.membership.Membership;
import dev.chorus.node.setup.UserError;
import dev.chorus.privacy.membership.MemberCertificate;
import dev.chorus.privacy.membership.MembershipException;
import java.io.IOException;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code chorus config}: the configuration reference, and a check of a config file. */
@Command(
        name = "config",
        mixinStandardHelpOptions = true,
        description = "Configuration reference and checks.",
        subcommands = {ConfigCommand.Docs.class, ConfigCommand.Check.class})
final class ConfigCommand implements Runnable {

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** {@code chorus config docs [--out FILE]}: the Markdown reference of every key (docs/config.md). */
    @Command(name = "docs", mixinStandardHelpOptions = true, description = "Prints or writes docs/config.md.")
    static final class Docs implements Callable<Integer> {
        @Spec
        CommandLine.Model.CommandSpec spec;

        @Option(names = "--out", paramLabel = "FILE", description = "Write to FILE (atomically) instead of stdout.")
        Path out;

        @Override
        public Integer call() {
            String md = ConfigDocs.markdown();
            if (out == null) {
                spec.commandLine().getOut().print(md);
                spec.commandLine().getOut().flush();
                return 0;
            }
            try {
                AtomicFile.writeString(out, md);
            } catch (IOException e) {
                throw new UserError("cannot write " + out + ": " + e.getMessage(), e);
            }
            return 0;
        }
    }

    /**
     * {@code chorus config check --config FILE}: validates without starting anything. With a roster it also checks
     * this node's member certificate against the roster, the CRLs and the peer ID of its identity key, as the node
     * does at start, so that a config the node would refuse is refused here.
     */
    @Command(name = "check", mixinStandardHelpOptions = true, description = "Validates a node.yaml and exits.")
    static final class Check implements Callable<Integer> {
        @Spec
        CommandLine.Model.CommandSpec spec;

        @Option(names = "--config", required = true, paramLabel = "FILE", description = "The node.yaml to check.")
        Path config;

        @Option(names = "--set", paramLabel = "KEY=VALUE", description = "Overrides a config key (repeatable).")
        List<String> overrides = new ArrayList<>();

        @Override
        public Integer call() {
            NodeConfig cfg;
            try {
                cfg = ConfigLoader.load(config, overrides);
            } catch (ConfigException e) {
                throw new UserError(e.getMessage(), e);
            }
            String consortium = cfg.node().consortium();
            NodeConfig.Membership files = cfg.network().membership();
            String member = "";
            if (files != null) {
                try {
                    MemberCertificate own = Membership.check(
                            files.roster(),
                            files.certificate(),
                            files.crls(),
                            KeyFile.load(cfg.node().keyFile()).peerId().toBase58(),
                            InstantSource.system());
                    member = "; " + own.role().id() + " of " + own.organisation() + " until " + own.notAfter();
                } catch (MembershipException e) {
                    throw new UserError(
                            cfg.configFile() + ": " + ConfigSchema.MEMBERSHIP_CERTIFICATE + ": " + e.getMessage(), e);
                }
            }
            spec.commandLine().getOut().println(config + ": ok (consortium " + consortium + ")" + member);
            spec.commandLine().getOut().flush();
            return 0;
        }
    }
}
