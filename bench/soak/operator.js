/**
 * The soak's people: a QA session changing faults every few seconds (a scenario swap, a rule
 * switched off and on again: each an audit entry), a dashboard polling what the page polls
 * (/status and /report every 5 s, the whole /journal every 30 s, as a page reload does) and a
 * live /events subscriber. Every answer is counted; an admin call that fails is counted too.
 */
import WebSocket from 'ws';

const STEPS = [
  ['PUT', '/scenario', JSON.stringify({ name: 'stream-chaos' })],
  ['PUT', '/scenario', JSON.stringify({ name: 'full-gauntlet' })],
  ['PUT', '/rules/internal-error/enabled', 'false'],
  ['PUT', '/rules/internal-error/enabled', 'true'],
];

async function call(adminUrl, method, path, body, counts) {
  try {
    const res = await fetch(`${adminUrl}${path}`, { method, body, headers: body === undefined ? {} : { 'content-type': 'application/json' } });
    await res.arrayBuffer();
    if (res.ok) counts.adminOk++;
    else counts.adminFailed++;
  } catch {
    counts.adminFailed++;
  }
}

/** Starts the operator's work; `stop()` ends it. `changeEveryMs`: the pace of swaps and switches. */
export function startOperator(adminUrl, { changeEveryMs = 3_000 } = {}) {
  const counts = { changes: 0, adminOk: 0, adminFailed: 0, events: 0, eventsReconnects: 0 };
  let step = 0;
  const timers = [
    setInterval(() => {
      const [method, path, body] = STEPS[step++ % STEPS.length];
      counts.changes++;
      void call(adminUrl, method, path, body, counts);
    }, changeEveryMs),
    setInterval(() => {
      void call(adminUrl, 'GET', '/status', undefined, counts);
      void call(adminUrl, 'GET', '/report', undefined, counts);
    }, 5_000),
    setInterval(() => void call(adminUrl, 'GET', '/journal', undefined, counts), 30_000),
  ];
  let socket;
  let stopped = false;
  const subscribe = () => {
    socket = new WebSocket(`${adminUrl.replace(/^http/, 'ws')}/events`, 'aap-chaos.events');
    socket.on('message', () => counts.events++);
    socket.on('error', () => {});
    socket.on('close', () => {
      if (stopped) return;
      counts.eventsReconnects++;
      setTimeout(subscribe, 1_000);
    });
  };
  subscribe();
  return {
    counts,
    stop() {
      stopped = true;
      for (const timer of timers) clearInterval(timer);
      socket?.close();
    },
  };
}
