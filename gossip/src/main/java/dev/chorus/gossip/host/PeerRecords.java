package dev.chorus.gossip.host;

import dev.chorus.gossip.identity.PeerId;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.gossip.record.PeerRecord;
import dev.chorus.gossip.record.RecordException;
import dev.chorus.gossip.record.SignedEnvelope;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Signed peer records: this host's own (sealed again when its listen addresses change, with a larger sequence
 * number), and the latest verified one of each peer that sent one in identify, so that gossipsub's peer exchange can
 * hand them on. At most {@link #MAX_PEERS} peers' records are kept, the least recently updated dropped first.
 */
final class PeerRecords {

    static final int MAX_PEERS = 4096;

    private record Own(List<Multiaddr> addrs, long seq, SignedEnvelope envelope) {}

    private record Known(long seq, SignedEnvelope envelope) {}

    private final PrivateKey key;
    private Own own;
    private final Map<PeerId, Known> peers = new LinkedHashMap<>(16, 0.75f, false);

    PeerRecords(PrivateKey key) {
        this.key = key;
    }

    /** This host's record for {@code addrs} (without {@code /p2p}). */
    synchronized SignedEnvelope own(List<Multiaddr> addrs) {
        if (own == null || !own.addrs().equals(addrs)) {
            // Milliseconds since the epoch, as go-libp2p's, and above the last one even if the clock went back.
            long seq = Math.max(System.currentTimeMillis(), own == null ? 0 : own.seq() + 1);
            List<Multiaddr> kept =
                    addrs.size() > PeerRecord.MAX_ADDRESSES ? addrs.subList(0, PeerRecord.MAX_ADDRESSES) : addrs;
            own = new Own(List.copyOf(addrs), seq, new PeerRecord(key.peerId(), seq, kept).seal(key));
        }
        return own.envelope();
    }

    /**
     * Keeps {@code envelope} as {@code peer}'s record when it verifies, names {@code peer} and is newer than the one
     * held; anything else is ignored (a peer's bad record does not spoil its identify).
     */
    synchronized void learn(PeerId peer, SignedEnvelope envelope) {
        if (envelope == null) {
            return;
        }
        PeerRecord r;
        try {
            r = PeerRecord.open(envelope);
        } catch (RecordException e) {
            return;
        }
        if (!r.peerId().equals(peer)) {
            return;
        }
        Known held = peers.get(peer);
        if (held != null && held.seq() >= r.seq()) {
            return;
        }
        peers.remove(peer);
        peers.put(peer, new Known(r.seq(), envelope));
        if (peers.size() > MAX_PEERS) {
            peers.remove(peers.keySet().iterator().next());
        }
    }

    synchronized Optional<SignedEnvelope> of(PeerId peer) {
        Known k = peers.get(peer);
        return k == null ? Optional.empty() : Optional.of(k.envelope());
    }
}
