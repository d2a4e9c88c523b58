#!/usr/bin/env node
// Makes docs/exam-report.png, the screenshot the README opens with: the exam of the Python buyer
// over the default battery, its HTML report opened in headless Debian Chromium. The exam's own
// scorecard goes to stdout, so the README's copy of it can be refreshed from the same run.
//   npm run screenshot:exam      (builds first)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const root = fileURLToPath(new URL('..', import.meta.url));
const dir = mkdtempSync(path.join(tmpdir(), 'aap-chaos-shot-'));
const html = path.join(dir, 'report.html');
try {
  try {
    execFileSync(process.execPath, ['bin/aap-chaos.js', 'exam', '--parallel', '6', '--html', html, '--', 'python3', 'examples/python-buyer/buyer.py'], {
      cwd: root,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
  } catch (e) {
    if (e.status !== 1) throw e; // a FAIL still makes a report worth showing
  }
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
  const page = await browser.newPage({ viewport: { width: 1300, height: 860 }, deviceScaleFactor: 1 });
  await page.goto(pathToFileURL(html).href);
  await page.screenshot({ path: path.join(root, 'docs', 'exam-report.png') });
  await browser.close();
  console.log('wrote docs/exam-report.png');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
