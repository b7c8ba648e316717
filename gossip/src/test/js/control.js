// The control channel of the test peers: one JSON object per line on stdout (events and command
// results), one JSON command per line on stdin ({"cmd": NAME, ...}); the peer stops when stdin ends.
import { createInterface } from 'node:readline'

export const emit = (obj) => process.stdout.write(JSON.stringify(obj) + '\n')

// Announces the node's addresses, then runs each command line through commands[cmd] until stdin
// closes; a result is emitted as it is, a failure as an error event.
export function serveCommands (node, commands) {
  emit({ event: 'listening', peerId: node.peerId.toString(), addrs: node.getMultiaddrs().map(String) })
  const lines = createInterface({ input: process.stdin })
  lines.on('line', async (line) => {
    let cmd
    try {
      cmd = JSON.parse(line)
    } catch {
      emit({ event: 'error', message: 'bad command: ' + line })
      return
    }
    const run = commands[cmd.cmd]
    if (typeof run !== 'function') {
      emit({ event: 'error', cmd: cmd.cmd, message: 'unknown command: ' + cmd.cmd })
      return
    }
    try {
      emit(await run(cmd))
    } catch (err) {
      emit({ event: 'error', cmd: cmd.cmd, message: String(err && err.stack ? err.stack : err) })
    }
  })
  lines.on('close', async () => {
    await node.stop()
    process.exit(0)
  })
}
