package dev.chorus.learning.archfixture;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/** Test-only fixture for ArchitectureRulesCanFailTest: it breaks an architecture rule on purpose. */
public class LearningUsesSocketChannel {
    static void send(SocketChannel channel, ByteBuffer parameters) throws IOException {
        channel.write(parameters);
    }
}
