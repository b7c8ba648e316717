package dev.chorus.testnet.archfixture;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/** Test-only fixture for ArchitectureRulesCanFailTest: it breaks an architecture rule on purpose. */
public class TestnetUsesNetty {
    static ByteBuf wrap(byte[] bytes) {
        return Unpooled.wrappedBuffer(bytes);
    }
}
