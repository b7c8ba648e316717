// js-libp2p peer for the gossip module's interop tests. It listens on loopback, serves
// /chorus/echo/1.0.0 and /chorus/sink/1.0.0 (plus identify and ping), prints one JSON object per
// line on stdout, and takes JSON commands, one per line, on stdin. It exits on {"cmd":"exit"} or
// when stdin closes, so the test that started it always stops it.
import { createLibp2p } from 'libp2p'
import { tcp } from '@libp2p/tcp'
import { noise } from '@chainsafe/libp2p-noise'
import { yamux } from '@chainsafe/libp2p-yamux'
import { identify } from '@libp2p/identify'
import { ping } from '@libp2p/ping'
import { multiaddr } from '@multiformats/multiaddr'
import { createHash, randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { emit, serveCommands } from './control.js'

const ECHO = '/chorus/echo/1.0.0'
const SINK = '/chorus/sink/1.0.0'
const CHUNK = 64 * 1024
// --count-only: the sink counts bytes without hashing them (for throughput benchmarks).
const COUNT_ONLY = process.argv.includes('--count-only')
// --psk HEX, or --psk-file FILE (a key file, /key/swarm/psk/1.0.0/): a member of that private network
// (libp2p pnet). The package is imported only then, so that the peer also runs where it is not installed.
const argument = (name) => process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] ?? '' : undefined
const PSK_HEX = argument('--psk')
const PSK_FILE = argument('--psk-file')
if (PSK_HEX != null && !/^[0-9a-f]{64}$/.test(PSK_HEX)) {
  process.stderr.write('--psk needs 64 lower-case hexadecimal digits\n')
  process.exit(2)
}
const psk = PSK_FILE != null
  ? readFileSync(PSK_FILE)
  : PSK_HEX != null ? new TextEncoder().encode(`/key/swarm/psk/1.0.0/\n/base16/\n${PSK_HEX}\n`) : undefined
const protector = psk == null ? {} : { connectionProtector: (await import('@libp2p/pnet')).preSharedKey({ psk }) }
// --mdns: discovers peers by mDNS (@libp2p/mdns, a query every 500 ms) and answers their queries; each peer found
// is printed as a "discovery" event. Imported only then, as pnet is.
const discovery = process.argv.includes('--mdns')
  ? { peerDiscovery: [(await import('@libp2p/mdns')).mdns({ interval: 500 })] }
  : {}

const node = await createLibp2p({
  addresses: { listen: ['/ip4/127.0.0.1/tcp/0'] },
  transports: [tcp()],
  connectionEncrypters: [noise()],
  streamMuxers: [yamux()],
  ...protector,
  ...discovery,
  services: { identify: identify({ agentVersion: 'chorus-interop-js/0.1.0' }), ping: ping() }
})

node.addEventListener('peer:discovery', (evt) => {
  emit({ event: 'discovery', peer: evt.detail.id.toString(), addrs: evt.detail.multiaddrs.map(String) })
})

node.addEventListener('connection:open', (evt) => {
  emit({ event: 'connection', peer: evt.detail.remotePeer.toString(), direction: evt.detail.direction })
})

await node.handle(ECHO, async ({ stream }) => {
  try {
    await stream.sink(stream.source)
  } catch (err) {
    emit({ event: 'error', where: 'echo handler', message: String(err) })
  }
})

await node.handle(SINK, async ({ stream, connection }) => {
  try {
    const hash = createHash('sha256')
    let bytes = 0
    const start = performance.now()
    for await (const chunk of stream.source) {
      if (COUNT_ONLY) {
        bytes += chunk.byteLength
        continue
      }
      const b = chunk.subarray()
      bytes += b.length
      hash.update(b)
    }
    const reply = Buffer.alloc(8)
    reply.writeBigUInt64BE(BigInt(bytes))
    await stream.sink([reply])
    emit({ event: 'sink', peer: connection.remotePeer.toString(), bytes, sha256: hash.digest('hex'), ms: performance.now() - start })
  } catch (err) {
    emit({ event: 'error', where: 'sink handler', message: String(err) })
  }
})

async function collect (source) {
  const parts = []
  for await (const chunk of source) parts.push(chunk.subarray())
  return Buffer.concat(parts)
}

const commands = {
  async dial ({ addr }) {
    const conn = await node.dial(multiaddr(addr))
    return { event: 'dialed', peer: conn.remotePeer.toString() }
  },
  async identify ({ addr }) {
    const conn = await node.dial(multiaddr(addr))
    const r = await node.services.identify.identify(conn)
    return {
      event: 'identify',
      peer: r.peerId.toString(),
      agentVersion: r.agentVersion,
      protocolVersion: r.protocolVersion,
      protocols: r.protocols,
      listenAddrs: r.listenAddrs.map(String),
      observedAddr: r.observedAddr == null ? null : String(r.observedAddr),
      // Present only when the signed peer record verified (js refuses the identify otherwise).
      recordSeq: r.signedPeerRecord == null ? null : String(r.signedPeerRecord.seq),
      recordAddrs: r.signedPeerRecord == null ? [] : r.signedPeerRecord.addresses.map(String)
    }
  },
  async ping ({ addr, count }) {
    const rtts = []
    for (let i = 0; i < (count ?? 1); i++) rtts.push(await node.services.ping.ping(multiaddr(addr)))
    return { event: 'ping', rtts }
  },
  // lazy: propose the protocol and send at once, without waiting for the answer (negotiateFully: false).
  async echo ({ addr, bytes, lazy }) {
    const stream = await node.dialProtocol(multiaddr(addr), ECHO, { negotiateFully: lazy !== true })
    const data = randomBytes(bytes)
    const [, back] = await Promise.all([stream.sink([data]), collect(stream.source)])
    return { event: 'echo', bytes: back.length, equal: Buffer.compare(back, data) === 0 }
  },
  async sink ({ addr, bytes }) {
    const stream = await node.dialProtocol(multiaddr(addr), SINK)
    const hash = createHash('sha256')
    const start = performance.now()
    let sent = 0
    await stream.sink((async function * () {
      while (sent < bytes) {
        const b = randomBytes(Math.min(CHUNK, bytes - sent))
        hash.update(b)
        sent += b.length
        yield b
      }
    })())
    const reply = await collect(stream.source)
    return { event: 'sinkSent', bytes: sent, acknowledged: Number(reply.readBigUInt64BE(0)), sha256: hash.digest('hex'), ms: performance.now() - start }
  },
  // Throughput: one random chunk sent again and again, nothing hashed; ms from the first byte to the reply.
  async sinkBench ({ addr, bytes, chunk }) {
    const size = chunk ?? CHUNK
    const buf = randomBytes(size)
    const stream = await node.dialProtocol(multiaddr(addr), SINK)
    const start = performance.now()
    let sent = 0
    await stream.sink((async function * () {
      while (sent < bytes) {
        const n = Math.min(size, bytes - sent)
        sent += n
        yield n === size ? buf : buf.subarray(0, n)
      }
    })())
    const reply = await collect(stream.source)
    return { event: 'sinkSent', bytes: sent, acknowledged: Number(reply.readBigUInt64BE(0)), ms: performance.now() - start }
  },
  async exit () {
    await node.stop()
    process.exit(0)
  }
}

serveCommands(node, commands)
