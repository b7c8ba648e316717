package dev.chorus.gossip.multiaddr;

import dev.chorus.gossip.encoding.Varint;
import dev.chorus.gossip.identity.InvalidPeerIdException;
import dev.chorus.gossip.identity.PeerId;
import io.netty.handler.codec.CorruptedFrameException;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/** An immutable multiaddr: a list of (protocol, value) components. */
public final class Multiaddr {
    /** Longer text or binary forms are refused before parsing. */
    public static final int MAX_LENGTH = 1024;

    /** One component; the value is the binary form (empty for none). */
    public record Component(Protocol protocol, byte[] value) {
        public Component {
            value = value.clone();
        }

        @Override
        public byte[] value() {
            return value.clone();
        }

        public String valueText() {
            return Multiaddr.valueToText(protocol, value);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Component c && c.protocol == protocol && Arrays.equals(c.value, value);
        }

        @Override
        public int hashCode() {
            return protocol.hashCode() * 31 + Arrays.hashCode(value);
        }

        @Override
        public String toString() {
            return "/" + protocol.text() + "/" + valueText();
        }
    }

    private final List<Component> components;

    private Multiaddr(List<Component> components) {
        this.components = List.copyOf(components);
    }

    public static Multiaddr of(List<Component> components) {
        return new Multiaddr(components);
    }

    /** Parses the text form, e.g. {@code /ip4/127.0.0.1/tcp/4001/p2p/12D3KooW...}. */
    public static Multiaddr parse(String text) {
        if (text == null || text.isEmpty()) {
            throw new MultiaddrException("empty multiaddr");
        }
        if (text.length() > MAX_LENGTH) {
            throw new MultiaddrException("multiaddr longer than " + MAX_LENGTH + " characters");
        }
        if (!text.startsWith("/")) {
            throw new MultiaddrException("invalid multiaddr '" + text + "': must start with '/'");
        }
        String[] parts = text.substring(1).split("/", -1);
        List<Component> out = new ArrayList<>();
        int i = 0;
        while (i < parts.length) {
            String name = parts[i];
            if (name.isEmpty() && i == parts.length - 1 && i > 0) {
                break; // one trailing slash
            }
            Protocol p = Protocol.forName(name);
            if (p == null) {
                throw new MultiaddrException("invalid multiaddr '" + text + "': unknown protocol '" + name + "'");
            }
            if (i + 1 >= parts.length || parts[i + 1].isEmpty()) {
                throw new MultiaddrException("invalid multiaddr '" + text + "': /" + name + " needs a value");
            }
            String value = parts[i + 1];
            try {
                out.add(new Component(p, valueFromText(p, value)));
            } catch (IllegalArgumentException e) {
                throw new MultiaddrException(
                        "invalid multiaddr '" + text + "': bad " + name + " value '" + value + "': " + e.getMessage(),
                        e);
            }
            i += 2;
        }
        Multiaddr parsed = new Multiaddr(out);
        // Text is denser than binary for some protocols (an ip6 "::" stands for 16 bytes): a text form within the cap
        // can encode past it, and such an address could be parsed here but not read back where it is sent.
        if (parsed.toBytes().length > MAX_LENGTH) {
            throw new MultiaddrException("invalid multiaddr '" + text.substring(0, Math.min(64, text.length()))
                    + "...': longer than " + MAX_LENGTH + " bytes in binary form");
        }
        return parsed;
    }

    /** Parses the binary form: (uvarint code ++ value)+. */
    public static Multiaddr fromBytes(byte[] bytes) {
        if (bytes.length == 0) {
            throw new MultiaddrException("empty binary multiaddr");
        }
        if (bytes.length > MAX_LENGTH) {
            throw new MultiaddrException("binary multiaddr longer than " + MAX_LENGTH + " bytes");
        }
        List<Component> out = new ArrayList<>();
        int off = 0;
        try {
            while (off < bytes.length) {
                long code = Varint.decode(bytes, off);
                off += Varint.size(code);
                Protocol p = Protocol.forCode(code);
                if (p == null) {
                    throw new MultiaddrException("binary multiaddr: unknown protocol code " + code + " at byte " + off);
                }
                int len = p.size();
                if (len < 0) {
                    long l = Varint.decode(bytes, off);
                    off += Varint.size(l);
                    if (l > bytes.length - off) {
                        throw new MultiaddrException("binary multiaddr: /" + p.text() + " value overruns the address");
                    }
                    len = (int) l;
                }
                if (off + len > bytes.length) {
                    throw new MultiaddrException("binary multiaddr: truncated /" + p.text() + " value");
                }
                byte[] value = Arrays.copyOfRange(bytes, off, off + len);
                off += len;
                try {
                    validate(p, value);
                } catch (IllegalArgumentException e) {
                    throw new MultiaddrException("binary multiaddr: bad /" + p.text() + " value: " + e.getMessage(), e);
                }
                out.add(new Component(p, value));
            }
        } catch (CorruptedFrameException e) {
            throw new MultiaddrException("binary multiaddr: " + e.getMessage(), e);
        }
        return new Multiaddr(out);
    }

    /** {@code /ip4/A/tcp/P} or {@code /ip6/A/tcp/P} for a resolved socket address. */
    public static Multiaddr fromSocketAddress(InetSocketAddress address) {
        InetAddress ip = address.getAddress();
        if (ip == null) {
            throw new MultiaddrException("unresolved socket address " + address);
        }
        Protocol p = ip.getAddress().length == 4 ? Protocol.IP4 : Protocol.IP6;
        byte[] port = {(byte) (address.getPort() >> 8), (byte) address.getPort()};
        return new Multiaddr(List.of(new Component(p, ip.getAddress()), new Component(Protocol.TCP, port)));
    }

    public List<Component> components() {
        return Collections.unmodifiableList(components);
    }

    public byte[] toBytes() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Component c : components) {
            out.writeBytes(Varint.encode(c.protocol().code()));
            if (c.protocol().size() < 0) {
                out.writeBytes(Varint.encode(c.value.length));
            }
            out.writeBytes(c.value);
        }
        return out.toByteArray();
    }

    /** The peer ID of the last {@code /p2p/} component, if any. */
    public Optional<PeerId> peerId() {
        for (int i = components.size() - 1; i >= 0; i--) {
            if (components.get(i).protocol() == Protocol.P2P) {
                return Optional.of(PeerId.fromBytes(components.get(i).value));
            }
        }
        return Optional.empty();
    }

    /** This address with any {@code /p2p/} component removed. */
    public Multiaddr withoutPeerId() {
        return new Multiaddr(
                components.stream().filter(c -> c.protocol() != Protocol.P2P).toList());
    }

    /** This address ending in {@code /p2p/<id>} (replacing any existing one). */
    public Multiaddr withPeerId(PeerId id) {
        List<Component> out = new ArrayList<>(withoutPeerId().components);
        out.add(new Component(Protocol.P2P, id.toBytes()));
        return new Multiaddr(out);
    }

    public Optional<Component> first(Protocol p) {
        return components.stream().filter(c -> c.protocol() == p).findFirst();
    }

    /**
     * The TCP endpoint of an {@code ip4|ip6|dns|dns4|dns6 / tcp} address. DNS names come back
     * unresolved, for the transport to resolve when it dials.
     */
    public InetSocketAddress toTcpSocketAddress() {
        if (components.size() < 2 || components.get(1).protocol() != Protocol.TCP) {
            throw new MultiaddrException(
                    "multiaddr '" + this + "' is not a TCP address (expected /ip4|ip6|dns/<host>/tcp/<port>)");
        }
        Component host = components.get(0);
        int port = ((components.get(1).value[0] & 0xFF) << 8) | (components.get(1).value[1] & 0xFF);
        try {
            return switch (host.protocol()) {
                case IP4, IP6 -> new InetSocketAddress(InetAddress.getByAddress(host.value), port);
                case DNS, DNS4, DNS6 -> InetSocketAddress.createUnresolved(host.valueText(), port);
                default ->
                    throw new MultiaddrException(
                            "multiaddr '" + this + "': /" + host.protocol().text() + " cannot start a TCP address");
            };
        } catch (UnknownHostException e) {
            throw new MultiaddrException("multiaddr '" + this + "': " + e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (Component c : components) {
            sb.append(c);
        }
        return sb.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Multiaddr m && m.components.equals(components);
    }

    @Override
    public int hashCode() {
        return components.hashCode();
    }

    private static byte[] valueFromText(Protocol p, String text) {
        return switch (p) {
            case IP4 -> parseIp4(text);
            case IP6 -> parseIp6(text);
            case TCP, UDP -> {
                if (!text.matches("[0-9]{1,5}")) {
                    throw new IllegalArgumentException("not a port number");
                }
                int port = Integer.parseInt(text);
                if (port > 65535) {
                    throw new IllegalArgumentException("port above 65535");
                }
                yield new byte[] {(byte) (port >> 8), (byte) port};
            }
            case DNS, DNS4, DNS6, DNSADDR -> {
                byte[] b = text.getBytes(StandardCharsets.UTF_8);
                validate(p, b);
                yield b;
            }
            case P2P -> {
                try {
                    yield PeerId.parse(text).toBytes();
                } catch (InvalidPeerIdException e) {
                    throw new IllegalArgumentException(e.getMessage(), e);
                }
            }
        };
    }

    private static void validate(Protocol p, byte[] value) {
        if (p.size() >= 0 && value.length != p.size()) {
            throw new IllegalArgumentException("expected " + p.size() + " bytes, got " + value.length);
        }
        switch (p) {
            case DNS, DNS4, DNS6, DNSADDR -> {
                String name = new String(value, StandardCharsets.UTF_8);
                if (name.isEmpty() || name.length() > 253 || !name.matches("[A-Za-z0-9._-]+")) {
                    throw new IllegalArgumentException("not a DNS name");
                }
            }
            case P2P -> PeerId.fromBytes(value);
            default -> {}
        }
    }

    static String valueToText(Protocol p, byte[] v) {
        return switch (p) {
            case IP4 -> (v[0] & 0xFF) + "." + (v[1] & 0xFF) + "." + (v[2] & 0xFF) + "." + (v[3] & 0xFF);
            case IP6 -> formatIp6(v);
            case TCP, UDP -> Integer.toString(((v[0] & 0xFF) << 8) | (v[1] & 0xFF));
            case DNS, DNS4, DNS6, DNSADDR -> new String(v, StandardCharsets.UTF_8);
            case P2P -> PeerId.fromBytes(v).toBase58();
        };
    }

    private static byte[] parseIp4(String text) {
        String[] parts = text.split("\\.", -1);
        if (parts.length != 4) {
            throw new IllegalArgumentException("not a dotted IPv4 address");
        }
        byte[] out = new byte[4];
        for (int i = 0; i < 4; i++) {
            if (!parts[i].matches("[0-9]{1,3}") || Integer.parseInt(parts[i]) > 255) {
                throw new IllegalArgumentException("octet '" + parts[i] + "' is not in 0..255");
            }
            out[i] = (byte) Integer.parseInt(parts[i]);
        }
        return out;
    }

    /** IPv6 literal per RFC 4291 text forms, with an optional trailing dotted IPv4 part. */
    private static byte[] parseIp6(String text) {
        if (!text.matches("[0-9A-Fa-f:.]+") || !text.contains(":") || text.length() > 45) {
            throw new IllegalArgumentException("not an IPv6 address");
        }
        try {
            // Text with a ':' is parsed as an IPv6 literal or refused; it never triggers a name lookup.
            byte[] b = InetAddress.getByName(text).getAddress();
            if (b.length == 16) {
                return b;
            }
            // An IPv4-mapped literal (::ffff:a.b.c.d) comes back as 4 bytes.
            byte[] out = new byte[16];
            out[10] = (byte) 0xFF;
            out[11] = (byte) 0xFF;
            System.arraycopy(b, 0, out, 12, 4);
            return out;
        } catch (UnknownHostException | IllegalArgumentException e) {
            throw new IllegalArgumentException("not an IPv6 address", e);
        }
    }

    /** RFC 5952 text: lower case, no leading zeros, the longest run (>= 2) of zero groups as "::". */
    private static String formatIp6(byte[] v) {
        int[] g = new int[8];
        for (int i = 0; i < 8; i++) {
            g[i] = ((v[2 * i] & 0xFF) << 8) | (v[2 * i + 1] & 0xFF);
        }
        int bestStart = -1;
        int bestLen = 0;
        for (int i = 0; i < 8; ) {
            if (g[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && g[j] == 0) {
                j++;
            }
            if (j - i > bestLen && j - i >= 2) {
                bestStart = i;
                bestLen = j - i;
            }
            i = j;
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                sb.append("::");
                i += bestLen - 1;
                continue;
            }
            if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
                sb.append(':');
            }
            sb.append(Integer.toHexString(g[i]));
        }
        return sb.toString();
    }
}
