/**
 * Checks on `guardrails:` the schema does not express: each metric's limit (min for a success
 * share, max for the others), a skill for a latency percentile, and unique names.
 */
import { joinPointer, type Anchor } from './positions.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Which limit each metric is judged by. */
const LIMIT_OF: Record<string, 'min' | 'max'> = { lead_submit_success: 'min', duplicate_leads: 'max', retry_storm_ratio: 'max', p99_latency_ms: 'max' };

export function guardrailProblems(document: Json, report: (path: string, message: string, anchor?: Anchor) => void): void {
  if (!Array.isArray(document.guardrails)) return;
  const names = new Map<string, number>();
  document.guardrails.forEach((g, index) => {
    if (!isObject(g)) return;
    const at = (...segments: Array<string | number>) => joinPointer('/guardrails', index, ...segments);
    if (typeof g.name === 'string') {
      const first = names.get(g.name);
      if (first === undefined) names.set(g.name, index);
      else report(at('name'), `duplicate guardrail name "${g.name}" (already used by /guardrails/${first})`);
    }
    const limit = typeof g.metric === 'string' ? LIMIT_OF[g.metric] : undefined;
    if (!limit) return; // the schema names the metrics
    const other = limit === 'min' ? 'max' : 'min';
    if (g[limit] === undefined) report(at('metric'), `${g.metric} needs "${limit}" (breached when the metric goes ${limit === 'min' ? 'below' : 'above'} it)`);
    if (g[other] !== undefined) report(at(other), `${g.metric} is judged by "${limit}", not "${other}"`, 'key');
    if (g.metric === 'p99_latency_ms' && g.skill === undefined)
      report(at('metric'), 'p99_latency_ms needs "skill" (the AAP skill whose latency is measured, e.g. inventory.search)');
    if (g.metric !== 'p99_latency_ms' && g.skill !== undefined) report(at('skill'), `"skill" only applies to p99_latency_ms`, 'key');
  });
}
