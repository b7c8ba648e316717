package dev.chorus.gossip.multiaddr;

/**
 * The multiaddr protocols this node understands, with their codes from multiformats/multiaddr
 * protocols.csv. A size of -1 means a uvarint length-prefixed value, 0 means no value.
 */
public enum Protocol {
    IP4(4, "ip4", 4),
    TCP(6, "tcp", 2),
    IP6(41, "ip6", 16),
    DNS(53, "dns", -1),
    DNS4(54, "dns4", -1),
    DNS6(55, "dns6", -1),
    DNSADDR(56, "dnsaddr", -1),
    UDP(273, "udp", 2),
    P2P(421, "p2p", -1);

    private final int code;
    private final String text;
    private final int size;

    Protocol(int code, String text, int size) {
        this.code = code;
        this.text = text;
        this.size = size;
    }

    public int code() {
        return code;
    }

    public String text() {
        return text;
    }

    /** Fixed value size in bytes, or -1 for length-prefixed values. */
    public int size() {
        return size;
    }

    public static Protocol forName(String name) {
        if (name.equals("ipfs")) {
            return P2P; // the old name of p2p, same code
        }
        for (Protocol p : values()) {
            if (p.text.equals(name)) {
                return p;
            }
        }
        return null;
    }

    public static Protocol forCode(long code) {
        for (Protocol p : values()) {
            if (p.code == code) {
                return p;
            }
        }
        return null;
    }
}
