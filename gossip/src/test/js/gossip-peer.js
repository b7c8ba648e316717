// js-libp2p gossipsub peer for the pubsub interop tests (@chainsafe/libp2p-gossipsub 14.1.2). It listens
// on loopback and speaks gossipsub with StrictSign and the message id of go and the Chorus node
// (from ++ seqno), prints one JSON object per line on stdout and takes JSON commands, one per line, on
// stdin. It exits on {"cmd":"exit"} or when stdin closes, so the test that started it always stops it.
//
// Scoring: js's defaults (P5 to P7, IP colocation above 10 peers per IP) plus topic parameters for every
// topic named in the CHORUS_SCORED_TOPICS environment variable (comma separated), so P1 to P4 apply there.
import { createLibp2p } from 'libp2p'
import { tcp } from '@libp2p/tcp'
import { noise } from '@chainsafe/libp2p-noise'
import { yamux } from '@chainsafe/libp2p-yamux'
import { identify } from '@libp2p/identify'
import { ping } from '@libp2p/ping'
import { gossipsub } from '@chainsafe/libp2p-gossipsub'
import { multiaddr } from '@multiformats/multiaddr'
import { emit, serveCommands } from './control.js'

const hex = (u8) => Buffer.from(u8).toString('hex')

function seqnoBytes (seq) {
  const b = Buffer.alloc(8)
  b.writeBigUInt64BE(BigInt(seq))
  return b
}

// go's form, and the Chorus default: peer ID multihash bytes ++ 8-byte seqno.
function msgIdFromAndSeqno (msg) {
  if (msg.type !== 'signed') throw new Error('expected a signed message')
  return Uint8Array.from(Buffer.concat([msg.from.toMultihash().bytes, seqnoBytes(msg.sequenceNumber)]))
}

const scoredTopics = (process.env.CHORUS_SCORED_TOPICS ?? '').split(',').filter((t) => t !== '')
const topics = {}
for (const t of scoredTopics) {
  topics[t] = {
    topicWeight: 1,
    timeInMeshWeight: 0.01,
    timeInMeshQuantum: 1000,
    timeInMeshCap: 300,
    firstMessageDeliveriesWeight: 1,
    firstMessageDeliveriesDecay: 0.9,
    firstMessageDeliveriesCap: 50,
    meshMessageDeliveriesWeight: -1,
    meshMessageDeliveriesDecay: 0.9,
    meshMessageDeliveriesThreshold: 1,
    meshMessageDeliveriesCap: 20,
    meshMessageDeliveriesActivation: 10000,
    meshMessageDeliveriesWindow: 100,
    meshFailurePenaltyWeight: -1,
    meshFailurePenaltyDecay: 0.9,
    invalidMessageDeliveriesWeight: -10,
    invalidMessageDeliveriesDecay: 0.9
  }
}

const node = await createLibp2p({
  addresses: { listen: ['/ip4/127.0.0.1/tcp/0'] },
  transports: [tcp()],
  connectionEncrypters: [noise()],
  streamMuxers: [yamux()],
  services: {
    identify: identify({ agentVersion: 'chorus-interop-js/0.1.0' }),
    ping: ping(),
    pubsub: gossipsub({
      emitSelf: false,
      allowPublishToZeroTopicPeers: true,
      msgIdFn: msgIdFromAndSeqno,
      scoreParams: { topics }
    })
  }
})
const pubsub = node.services.pubsub

pubsub.addEventListener('message', (evt) => {
  const msg = evt.detail
  emit({
    event: 'message',
    topic: msg.topic,
    from: msg.type === 'signed' ? msg.from.toString() : null,
    seqno: msg.type === 'signed' ? seqnoBytes(msg.sequenceNumber).toString('hex') : null,
    dataHex: hex(msg.data),
    signed: msg.type === 'signed'
  })
})

const commands = {
  async dial ({ addr }) {
    const conn = await node.dial(multiaddr(addr))
    return { event: 'dialed', peer: conn.remotePeer.toString() }
  },
  async subscribe ({ topic }) {
    pubsub.subscribe(topic)
    return { event: 'subscribed', topic }
  },
  async publish ({ topic, dataHex }) {
    const r = await pubsub.publish(topic, Buffer.from(dataHex, 'hex'))
    return { event: 'published', topic, recipients: r.recipients.length }
  },
  async mesh ({ topic }) {
    return { event: 'mesh', topic, peers: pubsub.getMeshPeers(topic), subscribers: pubsub.getSubscribers(topic).map(String) }
  },
  async scores () {
    const scores = {}
    for (const p of pubsub.getPeers()) scores[p.toString()] = pubsub.getScore(p.toString())
    return { event: 'scores', scores }
  },
  async exit () {
    await node.stop()
    process.exit(0)
  }
}

serveCommands(node, commands)
