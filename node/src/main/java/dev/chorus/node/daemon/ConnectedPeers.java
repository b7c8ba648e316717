package dev.chorus.node.daemon;

import dev.chorus.gossip.host.Connection;
import dev.chorus.gossip.host.ConnectionListener;
import dev.chorus.node.api.PeerInfo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The distinct peers with at least one open connection, kept up to date by the host's connection events. Two
 * nodes that dial each other hold two connections but count as one peer. Events arrive on I/O threads; reads come
 * from any thread.
 */
final class ConnectedPeers implements ConnectionListener {

    private static final Logger log = LoggerFactory.getLogger(ConnectedPeers.class);

    private final Map<String, List<Connection>> byPeer = new LinkedHashMap<>();

    @Override
    public void connected(Connection c) {
        String peer = c.remotePeer().toBase58();
        int count;
        synchronized (byPeer) {
            List<Connection> list = byPeer.computeIfAbsent(peer, p -> new ArrayList<>());
            if (list.contains(c)) {
                return;
            }
            list.add(c);
            if (list.size() > 1) {
                return;
            }
            count = byPeer.size();
        }
        log.info("peer {} connected ({}, {}); {} peers", peer, direction(c), c.remoteAddress(), count);
    }

    @Override
    public void disconnected(Connection c) {
        String peer = c.remotePeer().toBase58();
        int count;
        synchronized (byPeer) {
            List<Connection> list = byPeer.get(peer);
            if (list == null || !list.remove(c) || !list.isEmpty()) {
                return;
            }
            byPeer.remove(peer);
            count = byPeer.size();
        }
        log.info("peer {} disconnected; {} peers", peer, count);
    }

    /** One entry per peer, for its oldest open connection. */
    List<PeerInfo> peers() {
        List<PeerInfo> out = new ArrayList<>();
        synchronized (byPeer) {
            for (List<Connection> list : byPeer.values()) {
                for (Connection c : list) {
                    if (c.isOpen()) {
                        out.add(new PeerInfo(
                                c.remotePeer().toBase58(), c.remoteAddress().toString(), direction(c), c.openedAt()));
                        break;
                    }
                }
            }
        }
        return out;
    }

    private static String direction(Connection c) {
        return c.direction().name().toLowerCase(Locale.ROOT);
    }
}
