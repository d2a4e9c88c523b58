// Tests that need a Debian service (a headless browser) skip with one clear message when the
// machine lacks it; `.ci/run` installs it first, so CI skips nothing.
import { existsSync } from 'node:fs';

export const CHROMIUM_PATH = '/usr/bin/chromium';

/** The reason to skip a browser test, or false when Chromium is installed. */
export function chromiumMissing(): string | false {
  return existsSync(CHROMIUM_PATH) ? false : 'needs Debian chromium (apt-get install -y chromium)';
}
