/**
 * `aap-chaos check --target URL`: a bounded active probe of one dealer. It reads the card,
 * sends a few dozen requests at most (under 30 s in all), runs every reply through the
 * conformance module and grades each rule PASS, FAIL or NOT CHECKED with the wire evidence.
 */
import { displayUrl } from '../common/display-url.js';
import { AGENT_CARD_PATH, findAapExtension } from '../protocol/agent-card.js';
import { AAP_SKILLS, A2A_VERSION, extensionUriForProfile, type AapSkill, type Profile } from '../protocol/codes.js';
import { CONFORMANCE_RULES, appliesUnder, checkCard, checkReply, type ConformanceRule, type Finding, type Severity } from '../protocol/conformance/index.js';
import type { ExchangeRequest } from '../protocol/conformance/exchange.js';
import { ERROR_PROBES, RATE_LIMIT_PROBE, VALID_CALL_PROBES, probeBody, type Probe, type ProbeContext, type ProbeRequest } from './probes.js';
import { cardKeysFrom, checkCardSignatures, describeCardSignatures, signatureFindings, type CardSignatureResult } from './card-signatures.js';

export type RuleVerdict = 'PASS' | 'FAIL' | 'NOT CHECKED';

export interface CheckOptions {
  target: string;
  /** Envelope profile to hold the dealer to; `auto` reads it from the card's extension URI. */
  profile?: 'auto' | Profile;
  /** JSON-RPC URL to probe instead of the card's interface path on the target. */
  rpcUrl?: string;
  probeRateLimit?: boolean;
  /** Whole-run budget (default 25 s, always under 30 s). */
  budgetMs?: number;
  /** Calls the rate-limit probe may spend (default 25). */
  rateLimitCalls?: number;
  /** The keys the card's signatures are verified with: a key or JWKS file, or a JWKS URL (loopback or the target's origin). */
  cardKey?: string;
}

/** What went over the wire for one probe, cut to what a person reads. */
export interface WireRecord {
  probe: string;
  purpose: string;
  request: { method: string; url: string; headers: Record<string, string>; body?: unknown };
  response?: { status: number; headers: Record<string, string>; body: string };
  /** Why there is no response (timeout, connection refused). */
  failure?: string;
}

export interface EvidenceItem {
  probe: string;
  pointer: string;
  expected: string;
  seen: string;
}

export interface RuleResult {
  id: string;
  severity: Severity;
  title: string;
  verdict: RuleVerdict;
  /** FAIL: the violations; PASS: where the rule held; NOT CHECKED: empty. */
  evidence: EvidenceItem[];
  /** Why a rule was not checked. */
  note?: string;
}

export interface CheckReport {
  target: string;
  rpc_url: string;
  profile: Profile;
  profile_origin: 'flag' | 'card' | 'default';
  extension_uri: string;
  started_at: string;
  duration_ms: number;
  requests: number;
  rules: RuleResult[];
  wire: WireRecord[];
  notes: string[];
  /** The card's A2A v1.0 signatures: none, valid, invalid, or signed but not verified (no --card-key). */
  card_signatures?: CardSignatureResult;
  summary: { pass: number; fail: number; not_checked: number; must_fail: number };
  /** False when a MUST rule failed. */
  ok: boolean;
}

/** The target could not be reached at all: nothing was checked. */
export class TargetUnreachableError extends Error {
  override name = 'TargetUnreachableError';
}

const DEFAULT_BUDGET_MS = 25_000;
const PER_REQUEST_MS = 5_000;
const BODY_SHOWN = 4_000;
const SHOWN_HEADERS = ['content-type', 'a2a-extensions', 'a2a-version'];

interface Sent {
  status: number;
  headers: Record<string, string>;
  text: string;
}

class Prober {
  readonly wire: WireRecord[] = [];
  readonly findings: { probe: string; finding: Finding }[] = [];
  private nextId = 1;
  private readonly deadline: number;

  constructor(budgetMs: number) {
    this.deadline = Date.now() + budgetMs;
  }

  get outOfTime(): boolean {
    return Date.now() >= this.deadline - 250;
  }

  async send(probe: Probe, url: string, init: { method: string; headers: Record<string, string>; body?: unknown }): Promise<Sent | undefined> {
    const record: WireRecord = {
      probe: probe.name,
      purpose: probe.purpose,
      request: { method: init.method, url, headers: init.headers, ...(init.body !== undefined ? { body: init.body } : {}) },
    };
    this.wire.push(record);
    const timeout = Math.max(250, Math.min(PER_REQUEST_MS, this.deadline - Date.now()));
    try {
      const res = await fetch(url, {
        method: init.method,
        headers: init.headers,
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
        signal: AbortSignal.timeout(timeout),
        redirect: 'manual',
      });
      const text = await res.text();
      const headers: Record<string, string> = {};
      res.headers.forEach((value, name) => (headers[name] = value));
      record.response = {
        status: res.status,
        headers: Object.fromEntries(SHOWN_HEADERS.filter((h) => headers[h] !== undefined).map((h) => [h, headers[h]!])),
        body: text.length > BODY_SHOWN ? `${text.slice(0, BODY_SHOWN)}…` : text,
      };
      return { status: res.status, headers, text };
    } catch (err) {
      const e = err as Error & { cause?: { code?: string; message?: string } };
      record.failure = e.name === 'TimeoutError' ? `no reply within ${timeout} ms` : (e.cause?.code ?? e.cause?.message ?? e.message);
      return undefined;
    }
  }

  async rpc(
    probe: Probe,
    url: string,
    req: ProbeRequest,
    profile: Profile,
    ext: { uri: string; required: boolean },
  ): Promise<{ sent?: Sent; reply?: unknown }> {
    const id = req.stringId ? `check-${this.nextId++}` : this.nextId++;
    const body = probeBody(req, id);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: req.method === 'SendStreamingMessage' ? 'text/event-stream' : 'application/json',
    };
    if (req.a2aVersion !== undefined) headers['a2a-version'] = req.a2aVersion;
    if (req.extensions !== undefined) headers['a2a-extensions'] = req.extensions;
    const sent = await this.send(probe, url, { method: 'POST', headers, body });
    if (!sent) return {};
    const message = (body.params as { message: { messageId: string } }).message;
    const skill = String(req.data.type).replace(/\.request$/, '');
    const request: ExchangeRequest = {
      id,
      method: req.method,
      skill,
      skillData: req.data,
      messageId: message.messageId,
      a2aVersion: req.a2aVersion,
      extensions: req.extensions ? [req.extensions] : [],
    };
    for (const finding of checkReply({
      profile,
      extensionUri: ext.uri,
      extensionRequired: ext.required,
      request,
      status: sent.status,
      headers: sent.headers,
      body: sent.text,
    })) {
      this.findings.push({ probe: probe.name, finding });
    }
    let reply: unknown;
    try {
      reply = JSON.parse(sent.text);
    } catch {
      /* not JSON: the findings say so */
    }
    return { sent, reply };
  }
}

/** The JSON-RPC URL: the card's JSONRPC interface path on the target's origin (never another host). */
function rpcUrlFrom(card: unknown, target: URL): string | undefined {
  const interfaces = (card as { supportedInterfaces?: unknown } | null)?.supportedInterfaces;
  if (!Array.isArray(interfaces)) return undefined;
  const entry = interfaces.find(
    (i) => i && typeof i === 'object' && (i as { protocolBinding?: unknown }).protocolBinding === 'JSONRPC' && typeof (i as { url?: unknown }).url === 'string',
  );
  if (!entry) return undefined;
  try {
    const u = new URL((entry as { url: string }).url, target);
    return new URL(u.pathname + u.search, target.origin).toString();
  } catch {
    return undefined;
  }
}

function isRateLimited(reply: unknown): boolean {
  const data = (reply as { error?: { data?: unknown } } | null)?.error?.data;
  const entries = Array.isArray(data) ? data : data ? [data] : [];
  return entries.some(
    (e) => (e as { code?: unknown; reason?: unknown } | null)?.code === 'RATE_LIMITED' || (e as { reason?: unknown } | null)?.reason === 'RATE_LIMITED',
  );
}

export async function runCheck(opts: CheckOptions): Promise<CheckReport> {
  const startedAt = Date.now();
  let target: URL;
  try {
    target = new URL(opts.target);
    if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new Error('not http');
  } catch {
    throw new TypeError(`--target: "${displayUrl(opts.target)}" is not an http(s) URL`);
  }
  // Read before anything is sent: keys that cannot be had end the run with exit 2.
  const cardKeys = opts.cardKey === undefined ? undefined : await cardKeysFrom(opts.cardKey, target);
  const prober = new Prober(Math.min(opts.budgetMs ?? DEFAULT_BUDGET_MS, 29_000));
  const notes: string[] = [];
  const cardProbe: Probe = { name: 'agent-card', purpose: `GET ${AGENT_CARD_PATH}`, build: () => undefined };
  const cardUrl = new URL(AGENT_CARD_PATH.slice(1), target.href.endsWith('/') ? target : new URL(`${target.href}/`)).toString();
  const cardReply = await prober.send(cardProbe, cardUrl, { method: 'GET', headers: { accept: 'application/json', 'a2a-version': A2A_VERSION } });
  let card: unknown;
  if (cardReply) {
    try {
      card = cardReply.status === 200 ? JSON.parse(cardReply.text) : undefined;
    } catch {
      notes.push('the agent card is not valid JSON');
    }
    if (cardReply.status !== 200) notes.push(`the agent card answered HTTP ${cardReply.status}`);
  }

  const declared = findAapExtension(card);
  const profile: Profile = opts.profile && opts.profile !== 'auto' ? opts.profile : (declared?.profile ?? '1.3');
  const profileOrigin = opts.profile && opts.profile !== 'auto' ? 'flag' : declared ? 'card' : 'default';
  if (card !== undefined || cardReply) {
    for (const finding of checkCard(card ?? `(HTTP ${cardReply?.status ?? 0}, no JSON card)`, profile))
      prober.findings.push({ probe: cardProbe.name, finding });
  }
  const cardSignatures = card === undefined ? undefined : await checkCardSignatures(card, cardKeys, opts.cardKey);
  if (cardSignatures) for (const finding of signatureFindings(cardSignatures)) prober.findings.push({ probe: cardProbe.name, finding });
  const extensionUri = declared?.uri ?? extensionUriForProfile(profile);
  const ext = { uri: extensionUri, required: declared?.required ?? profile === '2.0' };
  const cardSkills = ((card as { skills?: unknown } | null)?.skills ?? []) as unknown[];
  let skills = cardSkills.map((s) => (s as { id?: unknown } | null)?.id).filter((id): id is AapSkill => (AAP_SKILLS as readonly unknown[]).includes(id));
  if (skills.length === 0) {
    skills = [...AAP_SKILLS];
    notes.push('no AAP skill could be read from the card: every skill was probed');
  }
  let rpcUrl = opts.rpcUrl ?? rpcUrlFrom(card, target);
  if (!rpcUrl) {
    rpcUrl = new URL('a2a', target.href.endsWith('/') ? target : new URL(`${target.href}/`)).toString();
    notes.push(`no JSONRPC interface on the card: probed ${rpcUrl}`);
  }

  const ctx: ProbeContext = { skills, extensionUri, streaming: (card as { capabilities?: { streaming?: unknown } } | null)?.capabilities?.streaming === true };
  let reached = cardReply !== undefined;
  const run = async (probe: Probe): Promise<unknown> => {
    if (prober.outOfTime) return undefined;
    const req = probe.build(ctx);
    if (!req) return undefined;
    const { sent, reply } = await prober.rpc(probe, rpcUrl!, req, profile, ext);
    if (sent) reached = true;
    return reply;
  };

  for (const skill of AAP_SKILLS) {
    const reply = await run(VALID_CALL_PROBES[skill]);
    if (skill === 'inventory.search') ctx.vehicleKey = vehicleKeyFrom(reply);
  }
  if (skills.includes('inventory.vehicle') && !ctx.vehicleKey)
    notes.push('no listed vehicle to ask inventory.vehicle about (inventory.search not declared or empty)');
  for (const probe of ERROR_PROBES) await run(probe);
  if (opts.probeRateLimit) {
    const calls = opts.rateLimitCalls ?? 25;
    let limited = false;
    for (let i = 0; i < calls && !limited && !prober.outOfTime; i++) limited = isRateLimited(await run(RATE_LIMIT_PROBE));
    if (!limited) notes.push(`no RATE_LIMITED after ${calls} calls`);
  }
  if (!reached)
    throw new TargetUnreachableError(`cannot reach the dealer at ${displayUrl(target.href)}: ${prober.wire.find((w) => w.failure)?.failure ?? 'no reply'}`);
  if (prober.outOfTime) notes.push('the time budget ran out before every probe was sent');

  const rules = gradeRules(prober.findings, profile, opts.probeRateLimit === true, cardSignatures);
  const must_fail = rules.filter((r) => r.verdict === 'FAIL' && r.severity === 'MUST').length;
  const count = (v: RuleVerdict) => rules.filter((r) => r.verdict === v).length;
  return {
    target: displayUrl(target.href),
    rpc_url: displayUrl(rpcUrl),
    profile,
    profile_origin: profileOrigin,
    extension_uri: extensionUri,
    started_at: new Date(startedAt).toISOString(),
    duration_ms: Date.now() - startedAt,
    requests: prober.wire.length,
    rules,
    wire: prober.wire,
    notes,
    ...(cardSignatures ? { card_signatures: cardSignatures } : {}),
    summary: { pass: count('PASS'), fail: count('FAIL'), not_checked: count('NOT CHECKED'), must_fail },
    ok: must_fail === 0,
  };
}

function vehicleKeyFrom(reply: unknown): Record<string, string> | undefined {
  const parts = (reply as { result?: { message?: { parts?: unknown } } } | null)?.result?.message?.parts;
  const payload = Array.isArray(parts) ? (parts[0] as { data?: { data?: { vehicles?: unknown } } } | null)?.data?.data : undefined;
  const first = Array.isArray(payload?.vehicles) ? (payload!.vehicles[0] as Record<string, unknown> | undefined) : undefined;
  for (const key of ['vin', 'stock', 'vehicle_id']) if (typeof first?.[key] === 'string') return { [key]: first[key] as string };
  return undefined;
}

/** Evidence items kept per rule (the JSON output keeps the whole wire record anyway). */
const EVIDENCE_KEPT = 20;

function gradeRules(
  found: { probe: string; finding: Finding }[],
  profile: Profile,
  probedRateLimit: boolean,
  cardSignatures: CardSignatureResult | undefined,
): RuleResult[] {
  return (CONFORMANCE_RULES as readonly ConformanceRule[]).map((rule) => {
    const mine = found.filter((x) => x.finding.rule === rule.id);
    const failed = mine.filter((x) => !x.finding.ok);
    const item = (x: { probe: string; finding: Finding }): EvidenceItem => ({
      probe: x.probe,
      pointer: x.finding.pointer,
      expected: x.finding.expected,
      seen: x.finding.seen,
    });
    const base = { id: rule.id, severity: rule.severity as Severity, title: rule.title };
    if (failed.length > 0) return { ...base, verdict: 'FAIL' as const, evidence: failed.slice(0, EVIDENCE_KEPT).map(item) };
    if (mine.length > 0) return { ...base, verdict: 'PASS' as const, evidence: mine.slice(0, EVIDENCE_KEPT).map(item) };
    const note = !appliesUnder(rule, profile)
      ? `applies under ${rule.profiles!.join(', ')} only; this dealer speaks ${profile}`
      : rule.id === 'AAP-ERR-016' && !probedRateLimit
        ? 'run with --probe-rate-limit to see a RATE_LIMITED reply'
        : rule.id === 'AAP-CARD-007' && cardSignatures
          ? `card signatures: ${describeCardSignatures(cardSignatures)}`
          : 'no probe reply exercised it';
    return { ...base, verdict: 'NOT CHECKED' as const, evidence: [], note };
  });
}
