// Choosing a scenario: a built-in from the list, or YAML pasted into the editor. A rejected text
// shows each problem at its line; the running scenario stays (the admin API guarantees that).
import { api, ApiCallError } from './api.js';
import { byId, fill, h } from './dom.js';
import type { BuiltinScenario } from './types.js';

interface Loaded {
  scenario: string;
  rules: unknown[];
}

interface Problem {
  line: number;
  col: number;
  text: string;
}

/** "scenario text:4:12  /rules/0/error  message", as PUT /scenario reports problems in pasted text. */
const LOCATED = /^scenario text:(\d+):(\d+)\s+(.*)$/s;

export async function bindScenario(onLoaded: () => void): Promise<void> {
  const picker = byId<HTMLSelectElement>('builtin');
  const editor = byId<HTMLTextAreaElement>('scenario-text');
  const gutter = byId('scenario-gutter');

  const sync = () => {
    const lines = editor.value.split('\n').length;
    if (gutter.childElementCount !== lines) fill(gutter, ...Array.from({ length: lines }, (_, i) => h('div', { 'data-line': String(i + 1) }, i + 1)));
    gutter.scrollTop = editor.scrollTop;
  };
  editor.addEventListener('input', () => {
    sync();
    markLines(gutter, []);
  });
  editor.addEventListener('scroll', () => (gutter.scrollTop = editor.scrollTop));
  sync();

  byId('load-builtin').addEventListener('click', () => load({ json: { name: picker.value } }, `built-in ${picker.value}`, onLoaded));
  byId('apply-scenario').addEventListener('click', () => load({ yaml: editor.value }, 'the pasted text', onLoaded, editor.value));
  byId('copy-running').addEventListener('click', async () => {
    try {
      // JSON is YAML: the running scenario, ready to edit.
      editor.value = JSON.stringify(await api('GET', '/scenario'), null, 2) + '\n';
      sync();
      showOutcome('', []);
    } catch (err) {
      showOutcome((err as Error).message, []);
    }
  });

  const { scenarios } = await api<{ scenarios: BuiltinScenario[] }>('GET', '/scenarios');
  fill(picker, ...scenarios.map((s) => h('option', { value: s.name, title: s.description }, s.name)));
}

async function load(body: { json: unknown } | { yaml: string }, what: string, onLoaded: () => void, text?: string): Promise<void> {
  const gutter = byId('scenario-gutter');
  try {
    const loaded = await api<Loaded>('PUT', '/scenario', body);
    markLines(gutter, []);
    showOutcome(`loaded ${loaded.scenario} from ${what} (${loaded.rules.length} ${loaded.rules.length === 1 ? 'rule' : 'rules'})`, [], 'ok');
    onLoaded();
  } catch (err) {
    if (!(err instanceof ApiCallError) || err.problems.length === 0) {
      showOutcome((err as Error).message, []);
      return;
    }
    const problems = err.problems.map(parseProblem);
    markLines(gutter, problems);
    showOutcome(err.message, problems, 'error', text);
  }
}

function parseProblem(formatted: string): Problem {
  const m = LOCATED.exec(formatted);
  return m ? { line: Number(m[1]), col: Number(m[2]), text: m[3]! } : { line: 0, col: 0, text: formatted.replace(/^scenario text\s+/, '') };
}

function markLines(gutter: HTMLElement, problems: Problem[]): void {
  const byLine = new Map<number, string[]>();
  for (const p of problems) byLine.set(p.line, [...(byLine.get(p.line) ?? []), p.text]);
  for (const cell of gutter.children as HTMLCollectionOf<HTMLElement>) {
    const messages = byLine.get(Number(cell.dataset.line));
    cell.classList.toggle('bad', messages !== undefined);
    cell.title = messages?.join('\n') ?? '';
  }
}

/** Each problem under a copy of the line it is about, numbered as in the editor. */
function showOutcome(message: string, problems: Problem[], kind: 'ok' | 'error' = 'error', text = ''): void {
  const outcome = byId('scenario-outcome');
  outcome.textContent = message;
  outcome.className = message ? kind : '';
  const source = text.split('\n');
  fill(
    byId('scenario-problems'),
    ...problems.map((p) =>
      h(
        'li',
        { class: 'problem', 'data-line': String(p.line) },
        p.line > 0 ? h('code', { class: 'source-line' }, h('span', { class: 'line-number' }, `${p.line}`), source[p.line - 1] ?? '') : null,
        h('div', { class: 'problem-text' }, p.line > 0 ? `line ${p.line}, column ${p.col}: ${p.text}` : p.text),
      ),
    ),
  );
}
