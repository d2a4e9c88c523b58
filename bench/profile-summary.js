/**
 * Self time per function in a V8 `.cpuprofile` (as `node --cpu-prof` writes it): the functions
 * that burn the CPU themselves, not those that merely call them. Used by `bench/run.js --cpu-prof`,
 * or on its own: `node bench/profile-summary.js <file.cpuprofile> [top]`.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const IDLE = new Set(['(idle)', '(program)']);
const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function place(callFrame) {
  const { url, lineNumber } = callFrame;
  if (!url) return '(native)';
  const file = url.startsWith('file://') ? path.relative(projectRoot, fileURLToPath(url)) : url;
  return `${file}:${lineNumber + 1}`;
}

/** Returns rows of { fn, where, selfMs, share } sorted by self time, largest first. */
export async function selfTimes(file) {
  const profile = JSON.parse(await readFile(file, 'utf8'));
  const nodeById = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const byFunction = new Map();
  for (const [id, us] of selfUs) {
    const { callFrame } = nodeById.get(id);
    const key = `${callFrame.functionName || '(anonymous)'} ${place(callFrame)}`;
    const row = byFunction.get(key) ?? { fn: callFrame.functionName || '(anonymous)', where: place(callFrame), selfMs: 0 };
    row.selfMs += us / 1000;
    byFunction.set(key, row);
  }
  const rows = [...byFunction.values()].sort((a, b) => b.selfMs - a.selfMs);
  // Shares are of the busy time: a proxy waiting between runs is idle, and that says nothing.
  const busyMs = rows.filter((r) => !IDLE.has(r.fn)).reduce((sum, r) => sum + r.selfMs, 0);
  for (const r of rows) r.share = IDLE.has(r.fn) ? NaN : r.selfMs / busyMs;
  return rows;
}

/**
 * Where a row's self time goes, coarsely: a directory of the project's code (`dist/journal`), a
 * package (`undici`), a Node module (`node:_http_server`), or a native function by its name
 * (`writev`, `(garbage collector)`). What the README's "share of each item" is read from.
 */
function areaOf({ fn, where }) {
  if (where === '(native)') return `${fn} (native)`;
  const file = where.replace(/:\d+$/, '');
  const own = /^(?:dist|src)\/([^/]+)\//.exec(file);
  if (own) return `${file.split('/')[0]}/${own[1]}`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
  if (pkg) return pkg[1];
  return file;
}

/** Self time summed by area (areaOf), largest first, with shares of the busy time. */
export function byArea(rows) {
  const areas = new Map();
  for (const r of rows) {
    if (IDLE.has(r.fn)) continue;
    const key = areaOf(r);
    const area = areas.get(key) ?? { area: key, selfMs: 0, share: 0 };
    area.selfMs += r.selfMs;
    area.share += r.share;
    areas.set(key, area);
  }
  return [...areas.values()].sort((a, b) => b.selfMs - a.selfMs);
}

/** The top functions overall, the top ones in the project's own proxy code and the top areas, as Markdown. */
export async function summarizeProfile(file, top = 15) {
  const rows = await selfTimes(file);
  const table = (list) =>
    [
      '| self ms | share | function | where |',
      '|---:|---:|---|---|',
      ...list.map((r) => `| ${r.selfMs.toFixed(0)} | ${(r.share * 100).toFixed(1)}% | ${r.fn} | ${r.where} |`),
    ].join('\n');
  const busy = rows.filter((r) => !IDLE.has(r.fn));
  const own = rows.filter((r) => r.where.startsWith('dist/') || r.where.startsWith('src/'));
  const areas = [
    '| self ms | share | area |',
    '|---:|---:|---|',
    ...byArea(rows)
      .slice(0, top)
      .map((a) => `| ${a.selfMs.toFixed(0)} | ${(a.share * 100).toFixed(1)}% | ${a.area} |`),
  ].join('\n');
  return `Top ${top} by self time:\n${table(busy.slice(0, top))}\n\nProject code (dist/) by self time:\n${table(own.slice(0, top))}\n\nBy area (a directory of dist/, a package, a Node module, a native function):\n${areas}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, top] = process.argv.slice(2);
  if (!file) {
    console.error('usage: node bench/profile-summary.js <file.cpuprofile> [top]');
    process.exit(2);
  }
  console.log(await summarizeProfile(file, top ? Number(top) : undefined));
}
