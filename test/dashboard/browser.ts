// Headless Debian Chromium for the dashboard tests: one browser per test file, a fresh page per
// test, and every page error or console error collected so a test can assert there were none
// (a Content-Security-Policy violation shows up there too).
import type { Test } from 'tap';
import type { Browser, Page } from 'playwright-core';
import { chromiumMissing } from '../helpers/debian-services.js';
import { launchChromium } from '../helpers/chromium.js';

/** The reason to skip, or false: pass as `{ skip }` to each browser test. */
export const skip = chromiumMissing();

let browser: Promise<Browser> | undefined;

/** Launches Chromium once for the file; closed when the file's root test ends. */
export function sharedBrowser(root: Test): Promise<Browser> {
  if (!browser) {
    browser = launchChromium();
    root.teardown(async () => (await browser!).close());
  }
  return browser;
}

export interface DashboardPage {
  page: Page;
  /** Page errors and console errors (a CSP violation among them) seen so far. */
  problems: string[];
}

/** Opens the dashboard of an instance in a new page, closed when `t` ends. */
export async function openDashboard(root: Test, t: Test, adminUrl: string, opts: { waitLive?: boolean; width?: number } = {}): Promise<DashboardPage> {
  const context = await (await sharedBrowser(root)).newContext({ viewport: { width: opts.width ?? 1400, height: 1000 } });
  t.teardown(() => context.close());
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    // An API answer the page handles (401, 422 …) is logged by Chromium too; that is no fault of the page.
    if (msg.type() === 'error' && !/^Failed to load resource: the server responded with a status of/.test(msg.text()))
      problems.push(`console error: ${msg.text()}`);
  });
  await page.goto(`${adminUrl}/`);
  if (opts.waitLive !== false) await page.locator('#live[data-state="open"]').waitFor();
  return { page, problems };
}

/**
 * How many distinct colours a PNG shows, counted by the browser itself (it decodes PNG, so the
 * tests need no image library). A blank or single-colour screenshot has one or two.
 */
export async function distinctColours(page: Page, png: Buffer): Promise<number> {
  const dataUrl = `data:image/png;base64,${png.toString('base64')}`;
  // On a blank page of its own (no CSP in the way); a string, so the tests need no DOM types.
  const blank = await page.context().newPage();
  try {
    return await blank.evaluate(`(async () => {
    const image = new Image();
    image.src = ${JSON.stringify(dataUrl)};
    await image.decode();
    const canvas = new OffscreenCanvas(image.width, image.height);
    const context = canvas.getContext('2d');
    context.drawImage(image, 0, 0);
    const pixels = context.getImageData(0, 0, image.width, image.height).data;
    const seen = new Set();
    for (let i = 0; i < pixels.length && seen.size < 1000; i += 4 * 7) seen.add((pixels[i] << 16) | (pixels[i + 1] << 8) | pixels[i + 2]);
    return seen.size;
  })()`);
  } finally {
    await blank.close();
  }
}
