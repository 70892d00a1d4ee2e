// A writer process for crash tests: appends numbered events to one session through the real
// store (compiled, dist/) and prints "ack N" after each acknowledged batch. Killed by the test.
// Usage: node writer.mjs ROOT ID BATCH LINE_BYTES [TAG]
import { SessionStore } from '../../dist/store/store.js';

const [root, id, batchArg, bytesArg, tag = '0'] = process.argv.slice(2);
const batch = Number(batchArg);
const lineBytes = Number(bytesArg);
const store = new SessionStore({ root, agent: 'writer' });
let n = 0;
for (;;) {
  const events = [];
  for (let i = 0; i < batch; i++) {
    events.push({ kind: 'user', t: new Date().toISOString(), content: `#${n} ` + 'x'.repeat(lineBytes), n, tag });
    n++;
  }
  await store.append(id, events);
  process.stdout.write(`ack ${n - 1}\n`);
}
