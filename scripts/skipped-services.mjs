// Runs after `npm test`: names the Debian packages whose tests were skipped on this machine and
// the one install line that enables them (CI installs them first and skips nothing).
import { existsSync } from 'node:fs';

const services = [
  { pkg: 'chromium', path: '/usr/bin/chromium', what: 'browser tests: the dashboard and the exam HTML report' },
  { pkg: 'redis-server', path: '/usr/bin/redis-server', what: 'fleet mode: replicas and workers sharing state through Redis' },
  { pkg: 'openssl', path: '/usr/bin/openssl', what: 'HTTPS: a throwaway CA and certificates for the proxy and admin listeners' },
];
const missing = services.filter((s) => !existsSync(s.path));
for (const s of missing) console.log(`skipped tests that need: ${s.pkg} (${s.what})`);
if (missing.length > 0) {
  console.log(`enable them with: sudo apt-get update && sudo apt-get install -y ${missing.map((s) => s.pkg).join(' ')}`);
}
