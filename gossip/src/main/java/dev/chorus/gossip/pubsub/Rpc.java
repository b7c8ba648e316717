package dev.chorus.gossip.pubsub;

import java.util.List;

/**
 * The pubsub {@code RPC}: subscriptions (field 1), published or forwarded messages (2) and the gossipsub
 * control message (3). Lists are never null; {@code control} is null when absent.
 */
public record Rpc(List<SubOpts> subscriptions, List<PubsubMessage> messages, Control control) {
    public Rpc {
        subscriptions = List.copyOf(subscriptions);
        messages = List.copyOf(messages);
        if (control != null && control.isEmpty()) {
            control = null;
        }
    }

    public static Rpc ofMessages(List<PubsubMessage> messages) {
        return new Rpc(List.of(), messages, null);
    }

    public static Rpc ofSubscriptions(List<SubOpts> subs) {
        return new Rpc(subs, List.of(), null);
    }

    public static Rpc ofControl(Control control) {
        return new Rpc(List.of(), List.of(), control);
    }

    public boolean isEmpty() {
        return subscriptions.isEmpty() && messages.isEmpty() && control == null;
    }

    /** {@code SubOpts { optional bool subscribe = 1; optional string topicid = 2; }} */
    public record SubOpts(boolean subscribe, String topic) {}

    /** {@code ControlMessage}: ihave 1, iwant 2, graft 3, prune 4, idontwant 5 (v1.2). */
    public record Control(
            List<IHave> ihave, List<IWant> iwant, List<Graft> graft, List<Prune> prune, List<IDontWant> idontwant) {
        public static final Control EMPTY = new Control(List.of(), List.of(), List.of(), List.of(), List.of());

        public Control {
            ihave = List.copyOf(ihave);
            iwant = List.copyOf(iwant);
            graft = List.copyOf(graft);
            prune = List.copyOf(prune);
            idontwant = List.copyOf(idontwant);
        }

        public boolean isEmpty() {
            return ihave.isEmpty() && iwant.isEmpty() && graft.isEmpty() && prune.isEmpty() && idontwant.isEmpty();
        }
    }

    /** {@code ControlIHave { optional string topicID = 1; repeated bytes messageIDs = 2; }} */
    public record IHave(String topic, List<MessageId> messageIds) {
        public IHave {
            messageIds = List.copyOf(messageIds);
        }
    }

    /** {@code ControlIWant { repeated bytes messageIDs = 1; }} */
    public record IWant(List<MessageId> messageIds) {
        public IWant {
            messageIds = List.copyOf(messageIds);
        }
    }

    /** {@code ControlGraft { optional string topicID = 1; }} */
    public record Graft(String topic) {}

    /**
     * {@code ControlPrune { optional string topicID = 1; repeated PeerInfo peers = 2; optional uint64 backoff =
     * 3; }}; {@code backoffSeconds} is -1 when absent (a v1.0 peer).
     */
    public record Prune(String topic, List<PeerInfo> peers, long backoffSeconds) {
        public Prune {
            peers = List.copyOf(peers);
        }
    }

    /** {@code PeerInfo { optional bytes peerID = 1; optional bytes signedPeerRecord = 2; }} */
    public record PeerInfo(byte[] peerId, byte[] signedPeerRecord) {}

    /** {@code ControlIDontWant { repeated bytes messageIDs = 1; }} */
    public record IDontWant(List<MessageId> messageIds) {
        public IDontWant {
            messageIds = List.copyOf(messageIds);
        }
    }
}
