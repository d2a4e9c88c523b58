// Tests that need a Debian service (a headless browser, a Redis server) skip with one clear message when the
// machine lacks it; `.ci/run` installs it first, so CI skips nothing.
import { existsSync } from 'node:fs';

export const CHROMIUM_PATH = '/usr/bin/chromium';
export const REDIS_SERVER_PATH = '/usr/bin/redis-server';

/** The reason to skip a browser test, or false when Chromium is installed. */
export function chromiumMissing(): string | false {
  return existsSync(CHROMIUM_PATH) ? false : 'needs Debian chromium (apt-get install -y chromium)';
}

/** The reason to skip a fleet-mode test, or false when Debian's redis-server is installed. */
export function redisMissing(): string | false {
  return existsSync(REDIS_SERVER_PATH) ? false : 'needs Debian redis-server (apt-get install -y redis-server)';
}

/** The reason to skip a test that makes certificates, or false when the openssl command is installed. */
export function opensslMissing(): string | false {
  return existsSync('/usr/bin/openssl') ? false : 'needs Debian openssl (apt-get install -y openssl)';
}
