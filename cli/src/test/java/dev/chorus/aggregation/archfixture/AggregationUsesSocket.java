package dev.chorus.aggregation.archfixture;

import java.io.IOException;
import java.net.Socket;

/** Test-only fixture for ArchitectureRulesCanFailTest: it breaks an architecture rule on purpose. */
public class AggregationUsesSocket {
    static void send(Socket socket, byte[] update) throws IOException {
        socket.getOutputStream().write(update);
    }
}
