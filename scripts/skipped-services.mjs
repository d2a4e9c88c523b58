// Runs after `npm test`: names the Debian packages whose tests were skipped on this machine and
// the one install line that enables them (CI installs them first and skips nothing).
import { existsSync } from 'node:fs';

if (!existsSync('/usr/bin/chromium')) {
  console.log('skipped tests that need: chromium (browser tests: the dashboard and the exam HTML report)');
  console.log('enable them with: sudo apt-get update && sudo apt-get install -y chromium');
}
