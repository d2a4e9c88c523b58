// A small context for the pure part of an effect test: a rule as the loader gives it, a
// classified request, and the steps of a plan run without sockets.
import { Readable, type Transform } from 'node:stream';
import { classifyRequest, type ClassifiedRequest } from '../../src/protocol/classify.js';
import { AAP_EXTENSION_URI_1_3 } from '../../src/protocol/codes.js';
import type { EffectContext } from '../../src/effects/effect.js';
import { emptyPlan, type ReplyPlan, type StepContext } from '../../src/effects/reply-plan.js';
import { effectsOf } from '../../src/effects/registry.js';
import { loadScenarioText, formatProblem, type Rule } from '../../src/scenario/load.js';
import { skillRequest } from './servers.js';

/** The first rule of a scenario, loaded (validated and normalised) as the engine gets it. */
export function loadedRule(yaml: string): Rule {
  const loaded = loadScenarioText(yaml, 'effect.yaml');
  if (!loaded.ok) throw new Error(loaded.problems.map(formatProblem).join('\n'));
  return loaded.scenario.rules![0]!;
}

export function classified(skill = 'inventory.search', headers: Record<string, string> = {}, id: string | number = 1): ClassifiedRequest {
  return classifyRequest({
    method: 'POST',
    url: '/a2a',
    headers: { 'content-type': 'application/json', ...headers },
    clientIp: '127.0.0.1',
    body: Buffer.from(skillRequest(skill, {}, id)),
    oversized: false,
  });
}

/** A seeded stand-in for the scenario's generator: the same draws every run. */
export function seeded(seed = 1): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

export function effectContext(over: Partial<EffectContext> = {}): EffectContext {
  return { request: classified(), profile: '1.3', extensionUri: AAP_EXTENSION_URI_1_3, random: seeded(), now: 0, keyState: {}, ...over };
}

/** The plan a set of rules' modifiers build for one request, with the sentences they said. */
export function planOf(yamlRules: string[], ctx: EffectContext = effectContext()): { plan: ReplyPlan; sentences: string[] } {
  const plan = emptyPlan();
  const sentences: string[] = [];
  for (const yaml of yamlRules) for (const m of effectsOf(loadedRule(`rules:\n  - ${yaml}\n`)).modifiers) sentences.push(m.apply(plan, ctx));
  return { plan, sentences };
}

export const stepContext = (over: Partial<StepContext> = {}): StepContext => ({ profile: '1.3', id: 1, ...over });

/** Pipes chunks through a transform and collects what comes out, and whether it broke. */
export async function throughTransform(chunks: string[], transform: Transform): Promise<{ text: string; broken: boolean }> {
  let text = '';
  const out = Readable.from(chunks.map((c) => Buffer.from(c))).pipe(transform);
  const broken = await new Promise<boolean>((resolve) => {
    out.on('data', (c: Buffer) => (text += c.toString()));
    out.on('end', () => resolve(false));
    out.on('error', () => resolve(true));
  });
  return { text, broken };
}
