package dev.chorus.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code chorus peer-id}: the peer ID of a key file, alone on one line. */
@Command(name = "peer-id", mixinStandardHelpOptions = true, description = "Prints the peer ID of an identity key file.")
final class PeerIdCommand implements Callable<Integer> {
    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--key", required = true, paramLabel = "FILE", description = "The key file (see 'chorus keygen').")
    Path key;

    @Override
    public Integer call() {
        PrintWriter w = spec.commandLine().getOut();
        w.println(P2pClient.identity(key).peerId().toBase58());
        w.flush();
        return 0;
    }
}
