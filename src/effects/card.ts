/**
 * `card`: faults of the agent card, so buyers meet slow, broken, changed and stale cards.
 * The effect adds a card plan; the proxy asks this file for the reply that replaces the card
 * (`http`, `malformed_json`) or for the card to serve (`stale`, then `patch`), and still points
 * its interface URLs at itself afterwards; `signature` faults are card-signature.ts's.
 */
import { boundReached } from '../common/bound-counts.js';
import type { Rule } from '../scenario/types.generated.js';
import type { ModifierEffect } from './effect.js';
import { createDelayEffect } from './delay.js';
import { patchJson } from './patch.js';
import type { CardPlan } from './reply-plan.js';

export type { CardPlan } from './reply-plan.js';

/** A card that stops in the middle of its first interface: what a buyer's JSON parser must survive. */
const MALFORMED_CARD = Buffer.from('{"name":"Dealer","description":"An agent card cut short","supportedInterfaces":[{"url":"http://');

export function createCardEffect(rule: Rule): ModifierEffect {
  const spec = rule.card!;
  const delay = spec.delay ? createDelayEffect({ id: rule.id, delay: spec.delay }) : undefined;
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(spec.http?.headers ?? {})) headers[k.toLowerCase()] = String(v);
  const http = spec.http ? { status: spec.http.status, headers, body: Buffer.from(spec.http.body ?? '') } : undefined;
  const parts = [
    delay ? `${delay.explain()}` : '',
    http ? `HTTP ${http.status} instead of the card` : '',
    spec.malformed_json ? 'malformed JSON instead of the card' : '',
    spec.stale?.minutes !== undefined ? `the card of ${spec.stale.minutes} min ago` : spec.stale?.card ? 'a fixed older card' : '',
    spec.patch ? `patch ${spec.patch.map((o) => `${o.op} ${o.path}`).join(', ')}` : '',
    spec.signature ? `signature ${spec.signature}` : '',
  ].filter(Boolean);
  const sentence = `card: ${parts.join(', ')}`;
  return {
    name: 'card',
    terminal: false,
    explain: () => sentence,
    apply: (plan, ctx) => {
      const card = (plan.card ??= { patches: [] });
      const said = [delay ? delay.apply(plan, ctx) : '', ...parts.slice(delay ? 1 : 0)].filter(Boolean);
      if (http) card.http = http;
      if (spec.malformed_json) card.malformedJson = true;
      if (spec.stale) card.stale = spec.stale as CardPlan['stale'];
      if (spec.patch) card.patches.push(spec.patch);
      if (spec.signature) card.signature = spec.signature;
      return `card: ${said.join(', ')}`;
    },
  };
}

/** The reply that stands in for the card, when the plan replaces it. */
export function cardReplacement(plan: CardPlan): { status: number; headers: Record<string, string>; body: Buffer } | undefined {
  if (plan.http) return plan.http;
  if (plan.malformedJson) return { status: 200, headers: { 'content-type': 'application/json' }, body: MALFORMED_CARD };
  return undefined;
}

const HISTORY_LIMIT = 64;

/** The dealer's cards as the proxy saw them, each from the time it first appeared (bounded). */
export class CardHistory {
  private readonly seen: { since: number; text: string }[] = [];

  record(card: unknown, now = Date.now()): void {
    const text = JSON.stringify(card);
    if (this.seen.at(-1)?.text === text) return;
    this.seen.push({ since: now, text });
    if (this.seen.length > HISTORY_LIMIT) {
      this.seen.shift();
      boundReached('card_history');
    }
  }

  /** The card served at `time`, or the oldest one known (with how old it is) when none is that old. */
  at(time: number): { card: unknown; exact: boolean; since: number } | undefined {
    for (let i = this.seen.length - 1; i >= 0; i--) {
      if (this.seen[i]!.since <= time) return { card: JSON.parse(this.seen[i]!.text), exact: true, since: this.seen[i]!.since };
    }
    const oldest = this.seen[0];
    return oldest ? { card: JSON.parse(oldest.text), exact: false, since: oldest.since } : undefined;
  }
}

/**
 * The card the one served starts from: the dealer's, or the stale one the plan asks for. Its
 * signatures, if any, are the ones the card came with.
 */
export function baseCard(dealerCard: unknown, plan: CardPlan, history: CardHistory, notes: string[], now = Date.now()): unknown {
  if (plan.stale?.card) return structuredClone(plan.stale.card);
  if (plan.stale?.minutes === undefined) return dealerCard;
  const old = history.at(now - plan.stale.minutes * 60_000);
  if (!old) return dealerCard;
  if (!old.exact) notes.push(`card: no card seen ${plan.stale.minutes} min ago; served the oldest one seen (${Math.round((now - old.since) / 1000)} s old)`);
  return old.card;
}

/** The card with the plan's patches applied. A patch that does not apply is skipped and noted. */
export function patchCard(card: unknown, plan: CardPlan, notes: string[]): unknown {
  for (const ops of plan.patches) {
    const patched = patchJson(card, ops);
    if ('doc' in patched) card = patched.doc;
    else notes.push(`card patch not applied: ${patched.notApplied}`);
  }
  return card;
}

/**
 * The card to serve: the dealer's, or the stale one the plan asks for, with the plan's patches
 * applied. The caller rewrites URLs and settles signatures afterwards.
 */
export function faultCard(dealerCard: unknown, plan: CardPlan, history: CardHistory, notes: string[], now = Date.now()): unknown {
  return patchCard(baseCard(dealerCard, plan, history, notes, now), plan, notes);
}
