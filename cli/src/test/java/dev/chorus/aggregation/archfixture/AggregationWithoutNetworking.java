package dev.chorus.aggregation.archfixture;

import java.io.IOException;
import java.net.URI;
import java.net.URL;
import java.net.URLDecoder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** Test-only fixture for ArchitectureRulesCanFailTest: it keeps to the rules, as a control. */
public class AggregationWithoutNetworking {
    static long size(URI file, URL resource) throws IOException {
        String name = URLDecoder.decode(resource.getFile(), StandardCharsets.UTF_8);
        try (FileChannel channel = FileChannel.open(Path.of(file), StandardOpenOption.READ)) {
            return channel.size() + name.length();
        }
    }
}
