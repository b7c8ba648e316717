package dev.chorus.node.setup;

import dev.chorus.gossip.identity.KeyFile;
import dev.chorus.gossip.identity.KeyFileException;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.learning.data.AtomicFile;
import dev.chorus.node.api.ApiToken;
import dev.chorus.node.config.StarterConfig;
import dev.chorus.privacy.files.OwnerOnlyFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * A node's data directory as {@code chorus init} creates it: a commented starter {@code node.yaml}, a new identity
 * key, and {@code checkpoints/}, {@code audit/}, {@code logs/}; files mode 0600, new directories 0700. Shared by {@code init} and the local
 * testnet, so both write the same layout.
 */
public final class NodeDirectory {

    private NodeDirectory() {}

    /**
     * Creates the data directory {@code dir}.
     *
     * @param values config keys to set in {@code node.yaml} (key to YAML text); every other key is commented out
     * @return the new identity
     * @throws UserError when {@code dir} already has a {@code node.yaml} or an {@code identity.key}, or cannot be
     *     written
     */
    public static PrivateKey create(Path dir, Map<String, String> values) {
        return create(dir, values, PrivateKey.generate());
    }

    /**
     * Creates the data directory {@code dir} with a given identity (e.g. when the other nodes' configs must name
     * its peer id before the directory is written).
     */
    public static PrivateKey create(Path dir, Map<String, String> values, PrivateKey identity) {
        Path yaml = dir.resolve("node.yaml");
        Path key = dir.resolve("identity.key");
        if (Files.exists(yaml)) {
            throw new UserError(yaml + " already exists; init does not overwrite a data directory");
        }
        if (Files.exists(key)) {
            throw new UserError(key + " already exists; init does not overwrite an identity");
        }
        String text = StarterConfig.render(values);
        try {
            for (String sub : new String[] {"checkpoints", "audit", "logs"}) {
                OwnerOnlyFiles.createDirectories(dir.resolve(sub));
            }
            KeyFile.create(key, identity);
            // The API's token, ready for when api.host leaves loopback (it is required there).
            Path token = dir.resolve("api.token");
            if (!Files.exists(token)) {
                ApiToken.create(token);
            }
            AtomicFile.write(
                    yaml, out -> out.write(text.getBytes(StandardCharsets.UTF_8)), OwnerOnlyFiles.fileAttributes(dir));
            return identity;
        } catch (KeyFileException e) {
            throw new UserError(e.getMessage(), e);
        } catch (IOException e) {
            throw new UserError("cannot write " + dir + ": " + OutputDirectory.reason(e), e);
        }
    }
}
