package dev.chorus.gossip.host;

import dev.chorus.gossip.core.Stream;
import dev.chorus.gossip.identity.PeerId;
import dev.chorus.gossip.yamux.YamuxStream;
import java.util.concurrent.CompletableFuture;

/**
 * A stream handed over before its protocol was agreed (multistream-select's lazy negotiation): the proposal went out
 * first, so writes follow it at once; reads wait for the remote's answer and fail with the negotiation's error when it
 * refused or did not answer in time, the stream then being reset. A peer that listed the protocol in identify and
 * refuses it costs the bytes written meanwhile, at most the stream's send window.
 */
final class PipelinedStream implements Stream {
    private final YamuxStream stream;
    private final String protocol;
    private final CompletableFuture<String> agreed;

    PipelinedStream(YamuxStream stream, String protocol, CompletableFuture<String> agreed) {
        this.stream = stream;
        this.protocol = protocol;
        this.agreed = agreed;
        agreed.whenComplete((p, e) -> {
            if (e != null) {
                stream.reset();
            }
        });
    }

    @Override
    public PeerId remotePeer() {
        return stream.remotePeer();
    }

    @Override
    public String protocol() {
        return protocol;
    }

    @Override
    public boolean isInitiator() {
        return true;
    }

    @Override
    public CompletableFuture<Void> write(byte[] data) {
        return stream.write(data);
    }

    @Override
    public CompletableFuture<byte[]> read() {
        return agreed.thenCompose(p -> stream.read());
    }

    @Override
    public CompletableFuture<byte[]> readExactly(int n) {
        return agreed.thenCompose(p -> stream.readExactly(n));
    }

    @Override
    public CompletableFuture<byte[]> readToEnd(int maxBytes) {
        return agreed.thenCompose(p -> stream.readToEnd(maxBytes));
    }

    @Override
    public CompletableFuture<Void> closeWrite() {
        return stream.closeWrite();
    }

    @Override
    public void reset() {
        stream.reset();
    }

    @Override
    public CompletableFuture<Void> closeFuture() {
        return stream.closeFuture();
    }

    @Override
    public String toString() {
        return stream + " (" + protocol + ", proposed lazily)";
    }
}
