/**
 * The facts about a request that a journal line keeps: what was asked, by which skill, and the
 * hashes that let the report tell "the same request" apart without storing personal data.
 */
import { hash } from 'node:crypto';
import type { ClassifiedRequest } from '../protocol/classify.js';
import type { JournalEntry } from './entry.js';

/** JSON with object keys sorted, so equal data hashes equally whatever the key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function canonicalHash(value: unknown): string {
  return hash('sha256', canonicalJson(value)).slice(0, 16);
}

type Facts = Pick<JournalEntry, 'method' | 'skill' | 'rpc_id' | 'a2a_version' | 'extensions' | 'request_hash' | 'idempotency_key' | 'vehicle'>;

export function journalFacts(request: ClassifiedRequest): Facts {
  const facts: Facts = {
    a2a_version: request.a2aVersion ?? null,
  };
  if (request.extensions.length) facts.extensions = request.extensions;
  if (request.kind !== 'jsonrpc') return facts;
  facts.method = request.rpcMethod;
  facts.rpc_id = request.id;
  if (!request.skill) return facts;
  facts.skill = request.skill;
  const data = request.skillData ?? {};
  if (request.skill === 'lead.submit') {
    // The key is kept on its own, so a lead retried under a new key still hashes as the same lead.
    const { idempotency_key: key, ...lead } = data;
    facts.request_hash = canonicalHash(lead);
    if (typeof key === 'string') facts.idempotency_key = key;
  } else {
    facts.request_hash = canonicalHash(data);
  }
  if (request.skill === 'inventory.vehicle') {
    const id = data.vin ?? data.stock ?? data.vehicle_id;
    if (typeof id === 'string') facts.vehicle = id;
  }
  return facts;
}
