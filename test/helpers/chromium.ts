// Headless Debian Chromium through playwright-core, for tests and the screenshot script alike.
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM_PATH } from './debian-services.js';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
}
