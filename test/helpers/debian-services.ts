// Tests that need a Debian service (a headless browser, a Redis server) skip with one clear
// message when the machine lacks it; `.ci/run` installs both first, so CI skips nothing.
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

export const CHROMIUM_PATH = '/usr/bin/chromium';

function onPath(command: string): string | undefined {
  try {
    return execFileSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** The reason to skip a browser test, or false when Chromium is installed. */
export function chromiumMissing(): string | false {
  return existsSync(CHROMIUM_PATH)
    ? false
    : 'needs Debian chromium (apt-get install -y chromium redis-server)';
}

/** The path of redis-server, or undefined. */
export function redisServerPath(): string | undefined {
  return onPath('redis-server');
}

/** The reason to skip a Redis test, or false when redis-server is installed. */
export function redisMissing(): string | false {
  return redisServerPath() ? false : 'needs Debian redis-server (apt-get install -y chromium redis-server)';
}
