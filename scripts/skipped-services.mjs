// Runs after `npm test`: names the Debian services whose tests were skipped on this machine
// and the one install line that enables them (CI installs them first and skips nothing).
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

const has = (cmd) => {
  try { execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }); return true; } catch { return false; }
};
const missing = [];
if (!existsSync('/usr/bin/chromium')) missing.push('chromium (browser tests: dashboard, exam HTML report)');
if (!has('redis-server')) missing.push('redis-server (fleet-mode tests)');
if (missing.length > 0) {
  console.log(`skipped tests that need: ${missing.join('; ')}`);
  console.log('enable them with: sudo apt-get update && sudo apt-get install -y chromium redis-server');
}
