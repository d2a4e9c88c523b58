/**
 * An instance as lines a person reads: its status, each rule, each journal line or event. `ctl`
 * prints them on a terminal and `aap-chaos mcp` puts them in its tools' text summaries.
 */
import { UNSAFE_TEXT, UNSAFE_TEXT_KEEPING_LINES } from '../common/safe-text.js';
import type { RuleStatus } from '../engine/decision.js';
import type { JournalEntry } from '../journal/entry.js';
import type { VerdictEvent } from '../observe/live-grader.js';
import { describeProfileOrigin } from '../proxy/profile.js';
import type { ChangeNotice, DroppedNotice } from './events.js';
import type { RuntimeStatus } from './surface.js';

/** "; reverts to X in N s" for a change that undoes itself, else nothing. */
export const ttlNote = (ttl: { remaining_s: number; reverts_to: string } | undefined): string =>
  ttl ? `; reverts to ${ttl.reverts_to} in ${ttl.remaining_s} s` : '';

export function ruleLine(r: RuleStatus): string {
  return `${r.enabled ? 'on ' : 'off'}  ${r.id}  matched ${r.matched}  fired ${r.fired}${r.effects.length ? `  ${r.effects.join('; ')}` : ''}`;
}

export function statusLines(s: RuntimeStatus): string[] {
  const origin = describeProfileOrigin(s.profile_origin);
  const lines = [
    `aap-chaos ${s.version}, up ${s.uptime_s} s: proxy ${s.url} -> ${s.target}${s.mock_dealer ? ' (embedded mock dealer)' : ''}`,
    `profile ${s.profile} (${origin}), extension ${s.extension_uri}${s.observe ? ', OBSERVE (nothing injected)' : s.dry_run ? ', DRY RUN' : ''}`,
    s.scenario ? `scenario ${s.scenario} (seed ${s.seed}), ${s.active_faults} active faults` : 'no scenario: every request is forwarded untouched',
  ];
  for (const r of s.rules) lines.push(`  ${ruleLine(r)}`);
  const lever = s.safety_lever;
  if (lever?.pulled)
    lines.push(
      `SAFETY LEVER PULLED${lever.halted_by ? ` (halted by ${lever.halted_by})` : ''} by ${lever.by ?? 'unknown'}${lever.at ? ` at ${lever.at}` : ''}${lever.reason ? `: ${lever.reason}` : ''}`,
    );
  for (const t of s.ttl ?? []) lines.push(`ttl: ${t.target} reverts to ${t.reverts_to} in ${t.remaining_s} s (at ${t.expires_at})`);
  if (s.guardrails?.length) lines.push(`guardrails: ${s.guardrails.join(', ')}`);
  const j = s.journal;
  lines.push(
    `journal: ${j.entries} in memory (ring ${j.ring_size})${j.file ? `, file ${j.file}` : ''}, ${j.dropped} dropped; ${s.events.clients} event clients, ${s.events.dropped} events dropped`,
  );
  return lines;
}

/**
 * Control characters (C0 but line breaks, DEL, C1) and the Unicode marks that reorder text, as
 * visible `\u001b` escapes: a buyer's method or path cannot move the cursor, retitle the window or
 * hide text on the operator's terminal. JSON text stays valid JSON (the escapes are JSON's own).
 */
export function terminalSafe(text: string, keepLineBreaks = true): string {
  return text.replace(keepLineBreaks ? UNSAFE_TEXT_KEEPING_LINES : UNSAFE_TEXT, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** One readable line per request: time, method, skill, rule, effect, status, duration; always one line. */
export function eventLine(message: JournalEntry | DroppedNotice | ChangeNotice | VerdictEvent): string {
  if ('type' in message && message.type === 'dropped') return `… ${message.count} events missed: this reader fell behind`;
  if ('type' in message && message.type === 'notice') return terminalSafe(`${message.ts.slice(11, 23)}  ${message.event}  ${message.message}`, false);
  if ('type' in message && message.type === 'verdict')
    return terminalSafe(`${message.ts.slice(11, 23)}  verdict  ${message.check}  ${message.verdict}  ${message.client}  ${message.explanation}`, false);
  const e = message as JournalEntry;
  const cols = [
    e.ts.slice(11, 23),
    e.method ?? `${e.http_method} ${e.path}`,
    e.skill ?? '-',
    e.fired.join(',') || '-',
    (e.effects.join('; ') || '-') + (e.dry_run && e.fired.length ? ' (dry run)' : ''),
    e.status === 0 ? 'no reply' : String(e.status),
    `${Math.round(e.duration_ms)} ms`,
  ];
  return terminalSafe(cols.join('  '), false);
}
