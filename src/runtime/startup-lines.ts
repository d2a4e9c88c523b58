/** The lines a run prints once it listens: where it is, what it fronts, and what is switched on. */
import { displayUrl } from '../common/display-url.js';
import { DEFAULT_ROTATION_KEEP } from '../common/rotating-file.js';
import { describeProfileOrigin } from '../proxy/profile.js';
import type { DealerSide } from './dealer-side.js';
import type { Front } from './front.js';
import { ruleCount, type LiveScenario } from './live-scenario.js';
import type { StartOptions } from './start-options.js';
import { VERSION } from './version.js';
import { CARD_JWKS_PATH } from '../protocol/card-signature.js';

export function startupLines(
  { opts, adminToken, observe, traces }: StartOptions,
  scenario: LiveScenario,
  side: DealerSide,
  front: Front,
  where: { url: string; adminUrl: string; dealerUrls: Record<string, string> | undefined },
): string[] {
  const { proxy, router, mocks } = front;
  // Shown without the credentials an operator may have put in the URL.
  const target = displayUrl(front.target);
  const engine = scenario.engine;
  const lines = [
    `aap-chaos ${VERSION}: proxy on ${where.url} -> ${side.mock ? `embedded mock dealer at ${target}` : side.replayFile !== undefined ? `dealer replayed from ${side.replayFile} at ${target}` : target}`,
  ];
  for (const [name, base] of Object.entries(where.dealerUrls ?? {})) {
    const origin = router!.dealers.get(name)!.forwarder.origin;
    lines.push(`  dealer ${name}: ${base} -> ${origin}${mocks.some((m) => m.url === origin) ? ' (embedded mock)' : ''}`);
  }
  if (proxy.profile.origin === 'default' && proxy.profile.fallbackReason)
    lines.push(`profile ${proxy.profile.profile} (the default): ${proxy.profile.fallbackReason}; it changes when a card naming the AAP extension is seen`);
  lines.push(`admin API on ${where.adminUrl}${adminToken ? ' (token required)' : ''}`);
  lines.push(`profile ${proxy.profile.profile} (${describeProfileOrigin(proxy.profile.origin)}), extension ${proxy.profile.extensionUri}`);
  lines.push(engine ? `scenario ${engine.name} (seed ${engine.seed}, ${ruleCount(engine)} rules)` : 'no scenario: every request is forwarded untouched');
  if (opts.journalFile) lines.push(`journal appended to ${opts.journalFile}${rotationNote(opts.journalMaxBytes, opts.journalKeep, opts.journalCompress)}`);
  if (opts.auditFile) lines.push(`audit log appended to ${opts.auditFile}${rotationNote(opts.auditMaxBytes, opts.auditKeep, opts.auditCompress)}`);
  if (observe) lines.push('observe mode: nothing is injected; the report checks grade live traffic per client (GET /report, /events, /metrics)');
  else if (opts.dryRun) lines.push('dry run: faults are journaled, never applied');
  lines.push(...cardSigningLines(side, front, where.url));
  if (side.recorder) lines.push(`recording exchanges to ${side.recorder.file} (at most ${side.recorder.maxBytes} bytes)`);
  if (traces) lines.push(`traces: OTLP http/json to ${displayUrl(traces.url)} (from ${traces.from}), service ${traces.serviceName}`);
  if (traces?.protocolNote) lines.push(`traces: ${traces.protocolNote}`);
  return lines;
}

/** Who signs the cards served, and where its public key is; or that the dealer's broken signatures are removed. */
function cardSigningLines(side: DealerSide, front: Front, url: string): string[] {
  const key = side.cardKeys.proxy;
  if (key) return [`agent cards signed with ${side.cardKeys.proxySource} (${key.alg}, kid ${key.kid}); public key at ${url}${CARD_JWKS_PATH}`];
  return [...front.proxies()].flatMap((p) => p.signatureRemovalNotice() ?? []);
}

/** ", rotated at 64 MiB, 5 kept, gzip": how a log file rotates, for its start-up line. */
function rotationNote(maxBytes: number | undefined, keep: number | undefined, compress: boolean | undefined): string {
  if (maxBytes === undefined) return '';
  const size = maxBytes % 1024 ** 2 === 0 ? `${maxBytes / 1024 ** 2} MiB` : maxBytes % 1024 === 0 ? `${maxBytes / 1024} KiB` : `${maxBytes} bytes`;
  return `, rotated at ${size}, ${keep ?? DEFAULT_ROTATION_KEEP} kept${compress ? ', gzip' : ''}`;
}
