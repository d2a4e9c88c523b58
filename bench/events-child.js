/**
 * A live `/events` subscriber in its own process (so that reading the stream does not share the
 * proxy's or the load generator's event loop): `events-child.js <admin-url>`. It counts the journal
 * lines it receives and the drops the hub reports, and answers `{ type: 'count' }` with them.
 */
import { WebSocket } from 'ws';

const [adminUrl] = process.argv.slice(2);
const socket = new WebSocket(`${adminUrl.replace(/^http/, 'ws')}/events`, { perMessageDeflate: false });
let received = 0;
let dropped = 0;
socket.on('message', (data) => {
  // A journal line starts with its ULID; the hub's only other message is the dropped notice.
  const text = data.toString();
  if (text.startsWith('{"type":"dropped"')) dropped += JSON.parse(text).count;
  else received += 1;
});
socket.once('open', () => process.send({ type: 'ready' }));
socket.once('error', (err) => {
  console.error(`bench: /events subscriber: ${err.message}`);
  process.exit(1);
});
process.on('message', (msg) => {
  if (msg?.type === 'count') process.send({ type: 'count', received, dropped });
  if (msg?.type === 'stop') process.exit(0);
});
process.on('disconnect', () => process.exit(0));
