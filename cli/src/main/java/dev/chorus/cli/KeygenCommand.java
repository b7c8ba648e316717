package dev.chorus.cli;

import dev.chorus.gossip.identity.KeyFile;
import dev.chorus.gossip.identity.KeyFileException;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.node.setup.UserError;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code chorus keygen}: a new Ed25519 identity key file, owner-only, never overwriting. */
@Command(
        name = "keygen",
        mixinStandardHelpOptions = true,
        description = "Writes a new Ed25519 identity key (libp2p PrivateKey protobuf) to a new file with mode 0600"
                + " and prints its peer ID. Refuses to overwrite an existing file.")
final class KeygenCommand implements Callable<Integer> {
    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--out", required = true, paramLabel = "FILE", description = "The key file to create.")
    Path out;

    @Override
    public Integer call() {
        PrivateKey key = PrivateKey.generate();
        try {
            KeyFile.create(out, key);
        } catch (KeyFileException e) {
            throw new UserError(e.getMessage(), e);
        }
        PrintWriter w = spec.commandLine().getOut();
        w.println("wrote " + out + " (peer ID " + key.peerId().toBase58() + ")");
        w.flush();
        return 0;
    }
}
