// Runs the built `aap-chaos exam` in a child process and collects what it printed.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/aap-chaos.js', import.meta.url));
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/exam/${name}`, import.meta.url));

/** The reference JS buyers as a command (tap's TypeScript loader, transpile only). */
export const jsBuyer = (kind: 'resilient' | 'naive') => [process.execPath, '--import', 'tsx', 'examples/buyer-command.ts', kind];

export interface ExamOutcome {
  code: number | null;
  out: string;
  err: string;
}

export function exam(args: string[], env: Record<string, string> = {}, cwd = ROOT): Promise<ExamOutcome> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'exam', ...args], {
      cwd,
      env: { ...process.env, TS_NODE_TRANSPILE_ONLY: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

type Verdicts = Record<string, string>;
export interface ExamJson {
  ok: boolean;
  verdict: 'PASS' | 'FAIL' | 'INCOMPLETE';
  exit_code: number;
  /** Per check, its verdict over the whole battery. */
  battery: Verdicts;
  /** The checks that must PASS somewhere. */
  required: string[];
  incomplete: { check: string; id?: string; verdict: string }[];
  scenarios: {
    scenario: string;
    flaky: boolean;
    verdicts: Verdicts;
    runs: {
      seed: number;
      ok: boolean;
      verdicts: Verdicts;
      evidence: Record<string, string[]>;
      explanations: Record<string, string>;
      buyer: { exit_code: number | null; signal: string | null; timed_out: boolean; stdout: string };
      /** The run's report: each check's verdict and explanation as `aap-chaos report` gives them. */
      report: { checks: { check: string; verdict: string; explanation: string }[] };
    }[];
  }[];
}

export const withVerdict = (verdicts: Verdicts, verdict: string) =>
  Object.entries(verdicts)
    .filter(([, v]) => v === verdict)
    .map(([c]) => c)
    .sort();
