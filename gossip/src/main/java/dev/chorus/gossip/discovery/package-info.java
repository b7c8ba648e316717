/**
 * Peer discovery: a static bootstrap list kept connected with reconnect backoff
 * ({@link dev.chorus.gossip.discovery.BootstrapDialer}), addresses learnt through identify
 * ({@link dev.chorus.gossip.discovery.AddressBook}), and mDNS on a LAN per libp2p/specs
 * discovery/mdns.md ({@link dev.chorus.gossip.discovery.MdnsDiscovery}, off by default). The decision
 * logic is separate from sockets and timers and runs on an injected clock.
 */
package dev.chorus.gossip.discovery;
