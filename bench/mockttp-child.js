/**
 * A peer beside the proxy: mockttp, the HTTP mocking and interception library a test suite might
 * use in aap-chaos's place, with one rule forwarding every request to the dealer
 * (`forAnyRequest().thenForwardTo`). Not a target; it shows what forwarding through a general
 * mocking proxy costs in the same run. Started like floor-child.js: `mockttp-child.js <target-url>`.
 */
import { getLocal } from 'mockttp';

const [target] = process.argv.slice(2);
const server = getLocal();
await server.start();
await server.forAnyRequest().thenForwardTo(target);
process.send({ type: 'ready', url: server.url.replace('localhost', '127.0.0.1') });
process.on('message', (msg) => {
  if (msg?.type === 'stop') server.stop().finally(() => process.exit(0));
});
process.on('disconnect', () => process.exit(0));
