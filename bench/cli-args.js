/**
 * The flags of the bench's focused scripts (compare.js, instructions.js): repeated `--name VALUE`
 * flags, positive numbers, and the cases they name (`--case NAME=SCENARIO[@BUILD]`,
 * `--floor NAME=CHILD`), with one usage line on a mistake (exit 2).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

export function benchArgs(script, usageLine, argv = process.argv.slice(2)) {
  const usage = (problem) => {
    console.error(`bench/${script}: ${problem}\nusage: node bench/${script} ${usageLine}`);
    process.exit(2);
  };
  const values = (name) => argv.flatMap((a, i) => (a === name && argv[i + 1] !== undefined ? [argv[i + 1]] : []));
  const number = (name, fallback) => {
    const [v] = values(name);
    const n = v === undefined ? fallback : Number(v);
    if (!(n > 0)) usage(`${name} must be a positive number, got ${JSON.stringify(v)}`);
    return n;
  };
  const pair = (text, flag) => {
    const at = text.indexOf('=');
    if (at <= 0) usage(`${flag} wants NAME=VALUE, got ${JSON.stringify(text)}`);
    return [text.slice(0, at), text.slice(at + 1)];
  };
  /** Floors first (`child`: a script of bench/), then proxies (`scenario`, `build`: a directory with bench/ and dist/). */
  const cases = () => {
    const list = [
      ...values('--floor').map((v) => {
        const [name, child] = pair(v, '--floor');
        return { name, child: path.join(here, child) };
      }),
      ...values('--case').map((v) => {
        const [name, rest] = pair(v, '--case');
        const [scenario, build] = rest.split('@');
        return { name, scenario, build: build ? path.resolve(build) : path.resolve(here, '..') };
      }),
    ];
    if (list.length === 0) usage('name at least one --case or --floor');
    return list;
  };
  return { flag: (name) => argv.includes(name), values, number, cases, usage };
}
