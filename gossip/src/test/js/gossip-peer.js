// js-libp2p gossipsub peer for the pubsub interop tests (@chainsafe/libp2p-gossipsub 14.1.2). It listens
// on loopback and speaks gossipsub with StrictSign and the message id of go and the Chorus node
// (from ++ seqno), prints one JSON object per line on stdout and takes JSON commands, one per line, on
// stdin. It exits on {"cmd":"exit"} or when stdin closes, so the test that started it always stops it.
// `chorus bench p2p --sections pubsub` drives it too: `echo` answers one topic's messages on another,
// `pingBench` and `floodBench` time round trips and acknowledged floods (the js-libp2p reference).
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

// Topics of the benchmark (below): their messages are handled here and not printed, since a line of hex per
// 100 KiB message would cost more than the message itself.
const benchHandlers = new Map()

pubsub.addEventListener('message', (evt) => {
  const msg = evt.detail
  const bench = benchHandlers.get(msg.topic)
  if (bench !== undefined) {
    bench(msg.data)
    return
  }
  emit({
    event: 'message',
    topic: msg.topic,
    from: msg.type === 'signed' ? msg.from.toString() : null,
    seqno: msg.type === 'signed' ? seqnoBytes(msg.sequenceNumber).toString('hex') : null,
    dataHex: hex(msg.data),
    signed: msg.type === 'signed'
  })
})

// The benchmark's messages: a kind byte (0: echo it whole, 1: acknowledge it, 2: no answer), an 8-byte sequence
// number, then the payload. A reply carries the same sequence number: the whole message for kind 0, the 9-byte head
// for 1.
const ECHO = 0
const ACK = 1

function benchMessage (kind, seq, size) {
  const b = Buffer.alloc(Math.max(9, size))
  b[0] = kind
  b.writeBigUInt64BE(BigInt(seq), 1)
  for (let i = 9; i < b.length; i += 64) b[i] = i & 0xff
  return b
}

const benchSeq = (data) => Number(Buffer.from(data.buffer, data.byteOffset, data.length).readBigUInt64BE(1))

// Waits until some peer is subscribed to the topic, so that the first message has somewhere to go.
async function awaitSubscriber (topic, seconds) {
  const deadline = Date.now() + seconds * 1000
  while (pubsub.getSubscribers(topic).length === 0) {
    if (Date.now() > deadline) throw new Error('no peer subscribed to ' + topic + ' within ' + seconds + ' s')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

// Replies come here: the sequence number's waiter is resolved.
const replyWaiters = new Map()

function listenForReplies (replyTopic) {
  if (!benchHandlers.has(replyTopic)) {
    benchHandlers.set(replyTopic, (data) => {
      const seq = benchSeq(data)
      const w = replyWaiters.get(seq)
      if (w !== undefined) {
        replyWaiters.delete(seq)
        w()
      }
    })
    pubsub.subscribe(replyTopic)
  }
}

const replyOf = (seq) => new Promise((resolve) => replyWaiters.set(seq, resolve))
let nextBenchSeq = 0

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
  // Subscribes to the answers of the benchmark's messages.
  async listen ({ replyTopic }) {
    listenForReplies(replyTopic)
    return { event: 'listening-for-replies', replyTopic }
  },
  // Answers every benchmark message on topic on replyTopic.
  async echo ({ topic, replyTopic }) {
    benchHandlers.set(topic, (data) => {
      if (data[0] !== ECHO && data[0] !== ACK) return
      const reply = data[0] === ECHO ? data : data.subarray(0, 9)
      pubsub.publish(replyTopic, reply).catch((err) => emit({ event: 'error', cmd: 'echo', message: String(err) }))
    })
    pubsub.subscribe(topic)
    return { event: 'echoing', topic, replyTopic }
  },
  // count messages of size bytes, one at a time, each echoed whole: the round trip of each, in microseconds.
  async pingBench ({ topic, replyTopic, size, count }) {
    listenForReplies(replyTopic)
    await awaitSubscriber(topic, 30)
    const micros = []
    for (let i = 0; i < count; i++) {
      const seq = nextBenchSeq++
      const data = benchMessage(ECHO, seq, size)
      const reply = replyOf(seq)
      const t0 = process.hrtime.bigint()
      await pubsub.publish(topic, data)
      await reply
      micros.push(Number(process.hrtime.bigint() - t0) / 1000)
    }
    return { event: 'pingBench', micros }
  },
  // count messages of size bytes, every ackEvery-th (and the last) to be acknowledged, with at most window sent
  // after the last acknowledged one: milliseconds from the first publication to the last acknowledgement. One
  // stream carries a peer's messages in order, so an acknowledgement covers every message before it.
  async floodBench ({ topic, replyTopic, size, count, window, ackEvery }) {
    listenForReplies(replyTopic)
    await awaitSubscriber(topic, 30)
    let covered = 0 // messages known to have arrived
    let wake = null
    const t0 = process.hrtime.bigint()
    let last = null
    for (let i = 0; i < count; i++) {
      while (i - covered >= window) await new Promise((resolve) => { wake = resolve })
      const seq = nextBenchSeq++
      const acked = (i + 1) % ackEvery === 0 || i === count - 1
      if (acked) {
        last = replyOf(seq).then(() => {
          covered = i + 1
          if (wake !== null) {
            const w = wake
            wake = null
            w()
          }
        })
      }
      await pubsub.publish(topic, benchMessage(acked ? ACK : 2, seq, size))
    }
    await last
    return { event: 'floodBench', ms: Number(process.hrtime.bigint() - t0) / 1e6 }
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
