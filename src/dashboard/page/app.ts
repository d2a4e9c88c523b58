// The dashboard's wiring: load what the instance knows, then follow /events live; counters,
// rules and the report are re-read shortly after traffic (and every few seconds regardless).
import { api, openEventsSocket } from './api.js';
import { renderCharts } from './charts.js';
import { byId, throttled } from './dom.js';
import { renderReport } from './report.js';
import { RequestList } from './requests.js';
import { bindDryRun, renderRules } from './rules.js';
import { bindScenario } from './scenario.js';
import type { ChangeNotice, DroppedNotice, JournalLine, Report, Status, VerdictEvent } from './types.js';

const POLL_MS = 5_000;
const RECONNECT_MS = [500, 1_000, 2_000, 5_000];

const requests = new RequestList();

const refresh = throttled(() => {
  refreshStatus().catch(showError);
  refreshReport().catch(showError);
}, 300);
const redrawCharts = throttled(() => renderCharts(requests.all()), 500);

async function refreshStatus(): Promise<void> {
  const status = await api<Status>('GET', '/status');
  renderRules(status, refresh);
  requests.knowRules(status.rules.map((r) => r.id));
}

async function refreshReport(): Promise<void> {
  renderReport(await api<Report>('GET', '/report'));
}

async function readJournal(): Promise<JournalLine[]> {
  const text = await api<string>('GET', '/journal');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as JournalLine);
}

function setLive(state: 'connecting' | 'open' | 'reconnecting', text: string): void {
  const badge = byId('live');
  badge.dataset.state = state;
  badge.textContent = text;
}

/** Opens /events first and holds what arrives until the journal so far is in: nothing falls between. */
function connect(attempt = 0): Promise<void> {
  return new Promise((resolve) => {
    const socket = openEventsSocket();
    let held: JournalLine[] | undefined = [];
    const took = (lines: readonly JournalLine[]) => {
      if (requests.add(lines) === 0) return;
      refresh();
      redrawCharts();
    };
    socket.onmessage = (event) => {
      const message = JSON.parse(String(event.data)) as JournalLine | DroppedNotice | ChangeNotice | VerdictEvent;
      // A change that is not a request (the lever moved, a TTL ran out) shows in the status; a
      // verdict of the live grading (--observe) in the report once re-read.
      if ('type' in message && (message.type === 'notice' || message.type === 'verdict')) refresh();
      else if ('type' in message && message.type === 'dropped') {
        byId('dropped-note').textContent = `${message.count} live events were missed; re-read from the journal`;
        readJournal().then(took, showError);
      } else if (held) held.push(message as JournalLine);
      else took([message as JournalLine]);
    };
    socket.onopen = async () => {
      attempt = 0;
      try {
        took(await readJournal());
      } catch (err) {
        showError(err);
      }
      took(held ?? []);
      held = undefined;
      setLive('open', 'live');
      resolve();
    };
    socket.onclose = () => {
      const wait = RECONNECT_MS[Math.min(attempt, RECONNECT_MS.length - 1)]!;
      setLive('reconnecting', `disconnected; retrying in ${wait / 1000} s`);
      setTimeout(() => void connect(attempt + 1), wait);
      resolve();
    };
  });
}

function showError(err: unknown): void {
  byId('page-error').textContent = (err as Error)?.message ?? String(err);
}

async function start(): Promise<void> {
  bindDryRun(refresh);
  setLive('connecting', 'connecting…');
  // The first call asks for the token when the instance needs one; the others wait for it.
  await refreshStatus();
  await Promise.all([refreshReport(), bindScenario(refresh), connect()]);
  renderCharts(requests.all());
  setInterval(refresh, POLL_MS);
  setInterval(redrawCharts, 2_000);
}

window.addEventListener('unhandledrejection', (event) => showError(event.reason));
start().catch(showError);
