/**
 * The facts about a request that a journal line keeps: what was asked, by which skill, and the
 * hashes that let the report tell "the same request" apart without storing personal data.
 */
import { createHash } from 'node:crypto';
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
  return createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, 16);
}

type Facts = Pick<JournalEntry, 'method' | 'skill' | 'rpc_id' | 'a2a_version' | 'extensions' | 'idempotency_key' | 'vehicle'>;

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
  if (request.skill === 'lead.submit' && typeof data.idempotency_key === 'string') facts.idempotency_key = data.idempotency_key;
  if (request.skill === 'inventory.vehicle') {
    const id = data.vin ?? data.stock ?? data.vehicle_id;
    if (typeof id === 'string') facts.vehicle = id;
  }
  return facts;
}

/**
 * Adds `request_hash` to a journal line as a value computed on first read (by the report, the
 * file writer or an events client), so a line that only sits in the ring costs no hashing.
 */
export function attachRequestHash(entry: JournalEntry, request: ClassifiedRequest): void {
  if (request.kind !== 'jsonrpc' || !request.skill) return;
  const data = request.skillData ?? {};
  let hash: string | undefined;
  Object.defineProperty(entry, 'request_hash', {
    enumerable: true,
    configurable: true,
    get() {
      if (hash === undefined) {
        // The key is kept on its own, so a lead retried under a new key still hashes as the same lead.
        const { idempotency_key: _key, ...rest } = data;
        hash = canonicalHash(request.skill === 'lead.submit' ? rest : data);
      }
      return hash;
    },
  });
}
