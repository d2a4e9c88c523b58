// The exam's HTML report in a real browser: it renders offline, shows the scorecard and the
// timelines, and every FAIL leads to its evidence.
import t from 'tap';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { chromiumMissing } from '../helpers/debian-services.js';
import { launchChromium } from '../helpers/chromium.js';
import { exam, fixture, type ExamJson } from '../helpers/exam.js';
import { tempDir } from '../helpers/temp-dir.js';

// Every test here runs buyer processes on a shared, slow machine: allow more than tap's default.
t.setTimeout(300_000);

/** Distinct colours in a PNG, counted by the browser itself (no image library needed). */
async function colourCount(page: Page, png: Buffer): Promise<number> {
  // A string, evaluated in the page: this project compiles without the DOM types.
  const dataUrl = JSON.stringify(`data:image/png;base64,${png.toString('base64')}`);
  return page.evaluate(`(async () => {
    const img = new Image();
    img.src = ${dataUrl};
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = img.width;
    canvas.height = img.height;
    const ctx = canvas.getContext('2d');
    ctx.drawImage(img, 0, 0);
    const { data } = ctx.getImageData(0, 0, img.width, img.height);
    const seen = new Set();
    for (let i = 0; i < data.length; i += 16) seen.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
    return seen.size;
  })()`) as Promise<number>;
}

t.test('the HTML report: scorecard, a timeline, a screenshot that is not blank, and a FAIL linked to its evidence', { skip: chromiumMissing() }, async (t) => {
  const dir = tempDir(t, 'aap-chaos-exam-html-');
  const html = path.join(dir, 'report.html');
  const run = await exam([
    '--scenarios',
    fixture('throttle-once.yaml'),
    '--seeds',
    '2',
    '--parallel',
    '2',
    '--json',
    '--html',
    html,
    '--',
    process.execPath,
    fixture('seed-buyer.mjs'),
  ]);
  t.equal(run.code, 1, run.err);
  const result = JSON.parse(run.out) as ExamJson;
  const failedRun = result.scenarios[0]!.runs.find((r) => !r.ok)!;
  const evidence = failedRun.evidence['retry-after']!;
  t.ok(evidence.length > 0, 'the failing run has evidence');

  const browser = await launchChromium();
  t.teardown(() => browser.close());
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const remote: string[] = [];
  page.on('request', (r) => {
    if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) remote.push(r.url());
  });
  await page.goto(pathToFileURL(html).href);

  await page.locator('table.scorecard').waitFor();
  t.equal(await page.locator('#overall').textContent(), 'FAIL');
  t.equal(await page.locator('table.scorecard tr').count(), 3, 'a header, one scenario row and the whole battery');
  t.equal(
    await page.locator('table.scorecard td.FLAKY').count(),
    4,
    'retry-after and no-storm are flaky across the two seeds, in the scenario and over the battery',
  );
  t.match(await page.locator('table.scorecard th').nth(1).textContent(), /retry-after\s*AAP-BUYER-001/, 'each check column names its requirement id');
  const timeline = page.locator('svg.timeline').first();
  t.ok(await timeline.isVisible(), 'a timeline renders');
  t.ok((await timeline.boundingBox())!.height > 40, 'with room for its lanes');
  t.ok((await page.locator('svg.timeline').first().locator('rect.bar').count()) >= 3, 'one bar per request');
  t.ok((await page.locator('svg.timeline rect.hint').count()) >= 1, 'the retry hint is drawn as a shaded wait');
  t.ok((await page.locator('svg.timeline path.retry').count()) >= 1, 'a retry is linked to the error it answers');
  t.ok((await page.locator('svg.timeline path.fault').count()) >= 1, 'injected faults are marked');
  t.same(await page.locator('svg.timeline .lane-label').first().textContent(), 'inventory.search', 'one lane per skill');

  const shot = await page.screenshot({ fullPage: true });
  t.ok(shot.length > 10_000, 'the screenshot has content');
  t.ok((await colourCount(page, shot)) > 8, 'the screenshot is not blank');

  await page.goto(pathToFileURL(html).href);
  await page.locator('table.scorecard td.FLAKY a').first().click();
  await page.waitForFunction("location.hash.startsWith('#ev-')");
  const target = page.locator(':target');
  t.ok(await target.isVisible(), 'the link lands on the evidence');
  const text = (await target.textContent())!;
  t.match(text, /retry-after: FAIL/);
  for (const id of evidence) t.match(text, id, `evidence ${id} is listed`);
  t.ok((await target.boundingBox())!.y < 900, 'scrolled into view');

  await target.locator('ol li a').first().click();
  await page.waitForFunction(`location.hash.endsWith(${JSON.stringify(evidence[0])})`);
  const line = page.locator(':target');
  t.ok(await line.isVisible(), 'the evidence id leads to its journal line');
  t.match(JSON.parse((await line.textContent())!), { id: evidence[0] });
  t.same(remote, [], 'the page asks no one for anything: it works offline');
});
