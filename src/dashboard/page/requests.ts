// The live request list: rows from the journal and /events, filters, and the detail of one row.
import { byId, clientHash, fill, h } from './dom.js';
import { isFault, type JournalLine } from './types.js';

/** Lines kept in the page; older ones fall off (the journal ring and file keep them). */
const MAX_LINES = 5_000;
/** Rows in the table at once; filters reach further back. */
const MAX_ROWS = 300;

interface Filters {
  skill: string;
  rule: string;
  session: string;
  faultsOnly: boolean;
}

export class RequestList {
  private lines: JournalLine[] = [];
  private readonly ids = new Set<string>();
  private selected: string | undefined;
  private readonly body = byId('request-rows');
  private readonly skillFilter = byId<HTMLSelectElement>('filter-skill');
  private readonly ruleFilter = byId<HTMLSelectElement>('filter-rule');
  private readonly sessionFilter = byId<HTMLSelectElement>('filter-session');
  private readonly faultsFilter = byId<HTMLInputElement>('filter-faults');
  private readonly known = { skill: new Set<string>(), rule: new Set<string>(), session: new Set<string>() };

  constructor() {
    for (const control of [this.skillFilter, this.ruleFilter, this.sessionFilter, this.faultsFilter]) control.addEventListener('change', () => this.render());
    this.body.addEventListener('click', (event) => {
      const row = (event.target as Element).closest('tr');
      if (row?.dataset.id) this.select(row.dataset.id);
    });
  }

  /** Every line the page holds, oldest first. */
  all(): readonly JournalLine[] {
    return this.lines;
  }

  /** Adds lines (duplicates are ignored); returns how many were new. */
  add(batch: readonly JournalLine[]): number {
    const fresh = batch.filter((line) => !this.ids.has(line.id));
    if (fresh.length === 0) return 0;
    for (const line of fresh) {
      this.ids.add(line.id);
      this.lines.push(line);
      this.learn(line);
    }
    if (this.lines.length > MAX_LINES) for (const old of this.lines.splice(0, this.lines.length - MAX_LINES)) this.ids.delete(old.id);
    const filters = this.filters();
    if (fresh.length === 1 && this.body.childElementCount > 0) {
      if (passes(fresh[0]!, filters)) this.body.prepend(row(fresh[0]!));
      while (this.body.childElementCount > MAX_ROWS) this.body.lastElementChild!.remove();
    } else {
      this.render();
    }
    this.count();
    return fresh.length;
  }

  /** Rule ids of the loaded scenario, offered by the rule filter even before one fires. */
  knowRules(ids: readonly string[]): void {
    const fresh = ids.filter((id) => !this.known.rule.has(id));
    if (fresh.length === 0) return;
    for (const id of fresh) this.known.rule.add(id);
    this.options(this.ruleFilter, this.known.rule, 'every rule');
  }

  render(): void {
    const filters = this.filters();
    const shown: HTMLTableRowElement[] = [];
    for (let i = this.lines.length - 1; i >= 0 && shown.length < MAX_ROWS; i--) {
      const line = this.lines[i]!;
      if (passes(line, filters)) shown.push(row(line, line.id === this.selected));
    }
    fill(this.body, ...shown);
    this.count();
  }

  private count(): void {
    byId('request-count').textContent = `${this.lines.length} ${this.lines.length === 1 ? 'request' : 'requests'}`;
  }

  private filters(): Filters {
    return { skill: this.skillFilter.value, rule: this.ruleFilter.value, session: this.sessionFilter.value, faultsOnly: this.faultsFilter.checked };
  }

  private learn(line: JournalLine): void {
    if (line.skill && !this.known.skill.has(line.skill)) this.options(this.skillFilter, this.known.skill.add(line.skill), 'every skill');
    this.knowRules(line.matched);
    if (line.session && !this.known.session.has(line.session)) this.options(this.sessionFilter, this.known.session.add(line.session), 'every session');
  }

  private options(select: HTMLSelectElement, values: Set<string>, everything: string): void {
    const current = select.value;
    fill(select, h('option', { value: '' }, everything), ...[...values].sort().map((v) => h('option', { value: v }, v)));
    select.value = current;
  }

  private select(id: string): void {
    this.selected = id;
    for (const tr of this.body.querySelectorAll('tr.selected')) tr.classList.remove('selected');
    this.body.querySelector(`tr[data-id="${id}"]`)?.classList.add('selected');
    const line = this.lines.find((l) => l.id === id);
    if (line) showDetail(line);
  }
}

function passes(line: JournalLine, f: Filters): boolean {
  if (f.skill && line.skill !== f.skill) return false;
  if (f.rule && !line.matched.includes(f.rule)) return false;
  if (f.session && line.session !== f.session) return false;
  return !f.faultsOnly || isFault(line);
}

const dash = '–';

function row(line: JournalLine, selected = false): HTMLTableRowElement {
  const classes = [
    isFault(line) ? 'fault' : '',
    line.dry_run && line.fired.length ? 'would-fire' : '',
    line.source === 'proxy' ? 'unreachable' : '',
    selected ? 'selected' : '',
  ]
    .filter(Boolean)
    .join(' ');
  const status = [line.status === 0 ? 'no reply' : String(line.status), line.error_code].filter(Boolean).join(' ');
  const statusTitle = [line.status === 0 ? 'no reply' : `HTTP ${line.status}`, line.error_code].filter(Boolean).join(', ');
  return h(
    'tr',
    { 'data-id': line.id, class: classes || undefined },
    h('td', { class: 'time' }, line.ts.slice(11, 23)),
    // With several dealers behind the proxy, the dealer leads the cell (one dealer: unchanged).
    h('td', {}, `${line.dealer !== undefined ? `${line.dealer} · ` : ''}${line.method ?? `${line.http_method} ${line.path}`}`),
    h('td', {}, line.skill ?? dash),
    h('td', { class: 'mono', title: 'hash of the client key' }, clientHash(line.client)),
    h('td', {}, line.session ?? dash),
    h('td', { class: 'rules' }, line.fired.length ? (line.dry_run ? `(dry run) ${line.fired.join(', ')}` : line.fired.join(', ')) : dash),
    h('td', { class: 'effects' }, line.effects.join('; ') || dash),
    h('td', { class: 'status', title: statusTitle }, status),
    h('td', { class: 'num' }, `${Math.round(line.duration_ms)} ms`),
  );
}

function showDetail(line: JournalLine): void {
  const facts: Array<[string, unknown]> = [
    ['dealer', line.dealer],
    ['HTTP', `${line.http_method} ${line.path}`],
    ['body', line.kind],
    ['JSON-RPC method', line.method],
    ['JSON-RPC id', line.rpc_id === undefined ? undefined : JSON.stringify(line.rpc_id)],
    ['skill', line.skill],
    ['A2A version', line.a2a_version],
    ['extensions', line.extensions?.join(', ')],
    ['request hash', line.request_hash],
    ['vehicle', line.vehicle],
    ['idempotency key', line.idempotency_key],
    ['session', line.session],
  ];
  fill(
    byId('detail'),
    h('h3', {}, 'Request'),
    h('dl', { id: 'detail-request' }, ...facts.filter(([, v]) => v !== undefined && v !== null).flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, String(v))])),
    h('h3', {}, 'Reply the buyer received'),
    h('p', { id: 'detail-reply-summary' }, replySummary(line)),
    line.reply_error
      ? h('pre', { id: 'detail-envelope' }, JSON.stringify({ jsonrpc: '2.0', id: line.rpc_id ?? null, error: line.reply_error }, null, 2))
      : null,
    h('h3', {}, 'Journal line'),
    h('pre', { id: 'detail-journal' }, JSON.stringify(line, null, 2)),
  );
}

function replySummary(line: JournalLine): string {
  const from = { dealer: 'from the dealer', injected: 'injected by the proxy', proxy: "the proxy's own (the dealer could not be reached)" }[line.source];
  if (line.status === 0)
    return line.aborted ? 'No reply: the buyer left first.' : `No reply: the connection was cut (${line.effects.join('; ') || 'no effect'}).`;
  const changed = line.source === 'dealer' && line.effects.length && !line.dry_run ? `, changed by: ${line.effects.join('; ')}` : '';
  const what = line.reply_error ? 'a JSON-RPC error envelope' : 'a reply without a JSON-RPC error (its body is not kept in the journal)';
  return `HTTP ${line.status}, ${what}, ${from}${changed}.`;
}
