// The dashboard end to end in headless Chromium: a real instance, real requests through the
// proxy, and what a person sees on the page.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import tap from 'tap';
import { callSkill, startTestRuntime } from '../control/control-fixture.js';
import { createBuyer, sendSkill } from '../helpers/sdk-buyer.js';
import { tempDir } from '../helpers/temp-dir.js';
import { Inventory } from '../../src/mock/inventory.js';
import { distinctColours, openDashboard, skip } from './browser.js';

/** Where the screenshot of the first test goes; DASHBOARD_SCREENSHOT=docs/dashboard.png refreshes the README's. */
const SCREENSHOT_TARGET = process.env.DASHBOARD_SCREENSHOT;

tap.test('requests appear within a second, faults highlighted, with their detail', { skip }, async (t) => {
  const rt = await startTestRuntime(t);
  const { page, problems } = await openDashboard(tap, t, rt.adminUrl);

  const throttled = await callSkill(rt.url, 'inventory.search', 'r1', { make: 'Honda' });
  t.equal(throttled.status, 200);
  const throttledRow = page.locator('#request-rows tr', { hasText: 'RATE_LIMITED' });
  await throttledRow.waitFor({ timeout: 1_000 });
  await callSkill(rt.url, 'dealer.information', 'r2');
  const plainRow = page.locator('#request-rows tr', { hasText: 'dealer.information' });
  await plainRow.waitFor({ timeout: 1_000 });

  const [search] = rt.journal.all();
  t.match(await throttledRow.getAttribute('class'), /\bfault\b/, 'the injected fault is highlighted');
  t.notMatch((await plainRow.getAttribute('class')) ?? '', /\bfault\b/, 'a plain request is not');
  const cells = await throttledRow.locator('td').allTextContents();
  t.same(cells.slice(1, 3), ['SendMessage', 'inventory.search'], 'method and skill');
  t.match(cells[3], /^[0-9a-f]{8}$/, 'the client as a short hash, not its address');
  t.equal(cells[5], 'throttle-search', 'rules fired');
  t.equal(cells[6], 'RATE_LIMITED (retryable), retry after 1500 ms', 'effect');
  t.equal(cells[7], '200 RATE_LIMITED', 'status');
  t.match(cells[8], /^\d+ ms$/, 'latency');

  await throttledRow.click();
  const envelope = JSON.parse((await page.locator('#detail-envelope').textContent())!);
  t.same(envelope, { jsonrpc: '2.0', id: 'r1', error: JSON.parse(throttled.body.toString()).error }, 'the envelope shown is the one the buyer received');
  t.same(JSON.parse((await page.locator('#detail-journal').textContent())!), search, 'the journal line');
  t.match(await page.locator('#detail-request').textContent(), /JSON-RPC method\s*SendMessage/);

  await page.locator('#filter-faults').check();
  t.equal(await page.locator('#request-rows tr').count(), 1, 'faults only: one row');
  await page.locator('#filter-faults').uncheck();
  await page.locator('#filter-skill').selectOption('dealer.information');
  t.same(await page.locator('#request-rows tr td:nth-child(3)').allTextContents(), ['dealer.information'], 'filtered by skill');
  await page.locator('#filter-skill').selectOption('');
  await page.locator('#filter-rule').selectOption('throttle-search');
  t.equal(await page.locator('#request-rows tr').count(), 1, 'filtered by rule');
  await page.locator('#filter-rule').selectOption('');

  // More traffic so the charts and the report have something to show in the screenshot.
  for (let i = 0; i < 6; i++) {
    if (i % 2) await callSkill(rt.url, 'inventory.vehicle', `more-${i}`, { vin: '1HGCM82633A004352' });
    else await callSkill(rt.url, 'inventory.facets', `more-${i}`);
  }
  await page.locator('#request-rows tr').nth(7).waitFor();
  await page.locator('#rules li[data-rule="throttle-search"] .fired', { hasText: '1' }).waitFor();
  await page.locator('#rules li[data-rule="slow-vehicle"] .fired', { hasText: '3' }).waitFor();
  await page.locator('#report-rows tr[data-check="retry-after"]').waitFor();
  await page.locator('#chart-faults rect.bar').first().waitFor();
  t.ok(await page.locator('#chart-rate rect.bar').count(), 'the rate chart has bars');
  t.ok(await page.locator('#chart-legend [data-rule="throttle-search"]').count(), 'the fault chart names the rule');

  const png = await page.screenshot({ fullPage: true });
  t.ok((await distinctColours(page, png)) > 20, 'the screenshot is not blank');
  const target = SCREENSHOT_TARGET ?? path.join(tempDir(t, 'aap-dashboard-'), 'dashboard.png');
  await writeFile(target, png);
  t.same(problems, [], 'no page or console errors');
});

tap.test('a rule switched off on the page: the next request passes through untouched', { skip }, async (t) => {
  const rt = await startTestRuntime(t);
  const { page, problems } = await openDashboard(tap, t, rt.adminUrl);
  const before = await callSkill(rt.url, 'inventory.search', 's1');
  t.match(JSON.parse(before.body.toString()), { error: { code: -32002 } }, 'throttled while the rule is on');

  const toggle = page.locator('#rules li[data-rule="throttle-search"] input[role="switch"]');
  t.ok(await toggle.isChecked(), 'the switch shows the rule on');
  const patched = page.waitForResponse((r) => r.url().endsWith('/rules/throttle-search') && r.request().method() === 'PATCH');
  await toggle.uncheck();
  t.equal((await patched).status(), 200);
  t.equal(rt.engine!.rules().find((r) => r.id === 'throttle-search')!.enabled, false, 'the instance has the rule off');

  const after = await callSkill(rt.url, 'inventory.search', 's2');
  const reply = JSON.parse(after.body.toString());
  t.equal(after.status, 200);
  t.notOk(reply.error, 'no error envelope');
  t.ok(reply.result, "the dealer's own result");
  t.match(rt.journal.all().at(-1), { rpc_id: 's2', fired: [], effects: [], source: 'dealer' }, 'no rule touched it');
  const row = page.locator('#request-rows tr').first();
  await page.locator('#request-rows tr').nth(1).waitFor({ timeout: 1_000 });
  t.notMatch((await row.getAttribute('class')) ?? '', /\bfault\b/, 'its row is not highlighted');
  await page.locator('#rules li[data-rule="throttle-search"].off').waitFor();

  // Stop all faults: dry run on, the rule set back on, still nothing applied.
  await toggle.check();
  await page.locator('#dry-run').click();
  await page.locator('#dry-run[aria-pressed="true"]').waitFor();
  t.equal(rt.status().dry_run, true, 'dry run is on');
  const dry = JSON.parse((await callSkill(rt.url, 'inventory.search', 's3')).body.toString());
  t.ok(dry.result, 'faults stopped: the dealer answers');
  t.match(rt.journal.all().at(-1), { fired: ['throttle-search'], dry_run: true }, 'the rule is still decided and journaled');
  await page.locator('#dry-run').click();
  await page.locator('#dry-run[aria-pressed="false"]').waitFor();
  t.match(JSON.parse((await callSkill(rt.url, 'inventory.search', 's4')).body.toString()), { error: { code: -32002 } }, 'faults resume');
  t.same(problems, [], 'no page or console errors');
});

tap.test('a broken scenario shows its problems at their lines; the running one keeps answering', { skip }, async (t) => {
  const rt = await startTestRuntime(t);
  const { page, problems } = await openDashboard(tap, t, rt.adminUrl);
  const broken = [
    'scenario: broken', //          1
    'rules:', //                    2
    '  - id: first', //             3
    '    match: { skill: inventory.search }', // 4
    '    error: NOT_A_CODE', //     5
    '  - id: second', //            6
    '    delay: { ms: 5 }', //      7
    '    colour: blue', //          8
    '',
  ].join('\n');
  await page.locator('#scenario-text').fill(broken);
  const put = page.waitForResponse((r) => r.url().endsWith('/scenario') && r.request().method() === 'PUT');
  await page.locator('#apply-scenario').click();
  t.equal((await put).status(), 422);
  t.equal((await put).request().headers()['content-type'], 'application/yaml', 'sent as YAML');

  const atLine5 = page.locator('#scenario-problems li[data-line="5"]');
  await atLine5.waitFor();
  t.match(await atLine5.textContent(), /error: NOT_A_CODE.*line 5, column \d+: \/rules\/0\/error/s, 'the problem sits under its line');
  t.match(await page.locator('#scenario-problems li[data-line="8"]').textContent(), /colour: blue.*line 8/s, 'and the other one under its own');
  t.equal(await page.locator('#scenario-gutter .bad').count(), 2, 'two lines marked in the editor');
  t.ok(await page.locator('#scenario-gutter [data-line="5"].bad').count(), 'line 5 is marked');
  t.match(await page.locator('#scenario-outcome').textContent(), /the current scenario is kept/);

  t.equal(rt.engine!.name, 'control-test', 'the running scenario is unchanged');
  t.match(JSON.parse((await callSkill(rt.url, 'inventory.search', 'b1')).body.toString()), { error: { code: -32002 } }, 'and it still answers');
  t.match(await page.locator('#scenario-name').textContent(), /control-test/);

  // A valid text replaces it, and a built-in can be picked.
  await page.locator('#scenario-text').fill('scenario: calm\nrules: []\n');
  await page.locator('#apply-scenario').click();
  await page.locator('#scenario-outcome.ok', { hasText: 'loaded calm' }).waitFor();
  t.equal(await page.locator('#scenario-problems li').count(), 0, 'no problems left');
  await page.locator('#scenario-name', { hasText: 'calm' }).waitFor();
  await page.locator('#builtin').selectOption('rate-limit-storm');
  await page.locator('#load-builtin').click();
  await page.locator('#scenario-name', { hasText: 'rate-limit-storm' }).waitFor();
  t.equal(rt.engine!.name, 'rate-limit-storm', 'the built-in is running');
  t.same(problems, [], 'no page or console errors');
});

tap.test("a report check turns FAIL after a naive buyer's retry", { skip }, async (t) => {
  const rt = await startTestRuntime(t);
  const { page, problems } = await openDashboard(tap, t, rt.adminUrl);
  const buyer = await createBuyer(rt.url);
  const verdict = page.locator('#report-rows tr[data-check="retry-after"] .verdict');

  const first = await sendSkill(buyer, 'inventory.search', { make: 'Honda' });
  t.match(first, { ok: false, envelopeCode: -32002 }, 'the buyer was rate limited');
  await page.locator('#report-rows tr[data-check="retry-after"] .verdict', { hasText: 'PASS' }).waitFor();
  t.equal(await verdict.textContent(), 'PASS', 'not retried yet: the hint is honoured so far');

  await sendSkill(buyer, 'inventory.search', { make: 'Honda' }); // at once, ignoring retry_after_ms
  await page.locator('#report-rows tr[data-check="retry-after"] .verdict', { hasText: 'FAIL' }).waitFor();
  t.match(await page.locator('#report-rows tr[data-check="retry-after"] .explanation').textContent(), /came back early/);
  t.notMatch(await page.locator('#report-summary').textContent(), /\b0 fail/, 'the summary counts the failure');
  t.same(problems, [], 'no page or console errors');
});

tap.test('with --admin-token the page asks for the token once and keeps it in memory only', { skip }, async (t) => {
  const rt = await startTestRuntime(t, { adminToken: 'tok-en 18' });
  const { page, problems } = await openDashboard(tap, t, rt.adminUrl, { waitLive: false });
  const dialog = page.locator('#token-dialog');
  await dialog.waitFor();
  t.ok(await dialog.isVisible(), 'asked for the token');

  await page.locator('#token-input').fill('wrong');
  await page.locator('#token-submit').click();
  await page.locator('#token-error', { hasText: 'refused' }).waitFor();
  t.ok(await dialog.isVisible(), 'a wrong token is asked again');

  await page.locator('#token-input').fill('tok-en 18');
  await page.locator('#token-submit').click();
  await page.locator('#live[data-state="open"]').waitFor();
  t.notOk(await dialog.isVisible(), 'the dialog is gone');
  await page.locator('#rules li[data-rule="throttle-search"]').waitFor();

  await callSkill(rt.url, 'inventory.search', 'tk1');
  await page.locator('#request-rows tr', { hasText: 'RATE_LIMITED' }).waitFor({ timeout: 1_000 });
  t.pass('live events arrive over the authorised WebSocket');
  await page.locator('#rules li[data-rule="slow-vehicle"] input').uncheck();
  await page.locator('#rules li[data-rule="slow-vehicle"].off').waitFor();
  t.equal(rt.engine!.rules().find((r) => r.id === 'slow-vehicle')!.enabled, false, 'state-changing calls carry the token too');
  t.notOk(await dialog.isVisible(), 'asked only once');

  const stored = await page.evaluate('JSON.stringify([localStorage.length, sessionStorage.length, document.cookie])');
  t.equal(stored, '[0,0,""]', 'nothing stored in the browser');
  t.notMatch(page.url(), /tok-en/, 'not in the address');
  t.same(problems, [], 'no page or console errors');
});

tap.test('the README screenshot is a real one', { skip }, async (t) => {
  const rt = await startTestRuntime(t);
  const { page } = await openDashboard(tap, t, rt.adminUrl);
  const png = await readFile(new URL('../../docs/dashboard.png', import.meta.url));
  t.ok((await distinctColours(page, png)) > 20, 'docs/dashboard.png is not blank');
});

tap.test('at the usual 1280 px the status cell shows the whole reason a reply failed, with the code as its tooltip', { skip }, async (t) => {
  const rt = await startTestRuntime(t);
  const { page, problems } = await openDashboard(tap, t, rt.adminUrl, { width: 1280 });
  // The longest code the dealer itself sends, beside an injected fault with a long effect sentence.
  await callSkill(rt.url, 'inventory.vehicle', 'v1', { vin: Inventory.fromSeed().firstSold().vin });
  await callSkill(rt.url, 'inventory.search', 's1', { make: 'Honda' });
  const row = page.locator('#request-rows tr', { hasText: 'VEHICLE_UNAVAILABLE' });
  await row.waitFor({ timeout: 5_000 });
  await page.locator('#request-rows tr', { hasText: 'RATE_LIMITED' }).waitFor({ timeout: 5_000 });
  for (const code of ['VEHICLE_UNAVAILABLE', 'RATE_LIMITED']) {
    const cell = page.locator('#request-rows tr', { hasText: code }).locator('td.status');
    t.equal(await cell.textContent(), `200 ${code}`);
    t.equal(await cell.getAttribute('title'), `HTTP 200, ${code}`, 'the whole code as a tooltip');
    // Measured by the browser: the text fits its cell, and the cell lies inside the visible part of the table.
    const fit = await cell.evaluate((td: any) => {
      const wrap = td.closest('.table-wrap').getBoundingClientRect();
      const box = td.getBoundingClientRect();
      return { scrollWidth: td.scrollWidth as number, clientWidth: td.clientWidth as number, right: box.right as number, visibleRight: wrap.right as number };
    });
    t.ok(fit.scrollWidth <= fit.clientWidth, `${code}: the text is not cut (${fit.scrollWidth} <= ${fit.clientWidth})`);
    t.ok(fit.right <= fit.visibleRight + 0.5, `${code}: the cell is not scrolled out of sight (${fit.right} <= ${fit.visibleRight})`);
  }
  t.same(problems, []);
});
