#!/usr/bin/env node
// Writes src/scenario/types.generated.ts from schema/scenario.schema.json, so the TypeScript
// types of a scenario can never drift from what the validator accepts, and
// src/scenario/effect-keys.generated.ts: the rule keys annotated `"x-aap-effect"` in $defs/Rule,
// terminal and modifier, in schema order (the order modifiers' reply steps run in); and
// src/effects/registry.generated.ts, which maps each key to src/effects/<key, _ as ->.ts and its
// create<Key>Effect, so an effect the schema declares without an implementation does not compile.
// `--check` writes nothing and exits 1 when a committed file is stale.
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { compile } from 'json-schema-to-typescript';

const schemaPath = fileURLToPath(new URL('../schema/scenario.schema.json', import.meta.url));
const outputPath = fileURLToPath(new URL('../src/scenario/types.generated.ts', import.meta.url));
const effectKeysPath = fileURLToPath(new URL('../src/scenario/effect-keys.generated.ts', import.meta.url));
const registryPath = fileURLToPath(new URL('../src/effects/registry.generated.ts', import.meta.url));

const BANNER = `/* Generated from schema/scenario.schema.json by scripts/gen-scenario-types.mjs. Do not edit by hand. */`;

/** The TypeScript source the schema generates today. */
export async function generateScenarioTypes() {
  const schema = JSON.parse(await readFile(schemaPath, 'utf8'));
  // The annotation is for the effect lists; next to a $ref it would make the compiler copy the type.
  for (const property of Object.values(schema.$defs.Rule.properties)) delete property['x-aap-effect'];
  return compile(schema, 'Scenario', {
    bannerComment: BANNER,
    additionalProperties: false,
    unreachableDefinitions: true,
    cwd: fileURLToPath(new URL('../schema/', import.meta.url)),
  });
}

const EFFECT_KINDS = ['terminal', 'modifier'];

/** The effect keys of $defs/Rule by kind, in schema order. */
async function effectKeysByKind() {
  const schema = JSON.parse(await readFile(schemaPath, 'utf8'));
  const lists = { terminal: [], modifier: [] };
  for (const [key, property] of Object.entries(schema.$defs.Rule.properties)) {
    const kind = property['x-aap-effect'];
    if (kind === undefined) continue;
    if (!EFFECT_KINDS.includes(kind))
      throw new Error(`schema/scenario.schema.json: /$defs/Rule/properties/${key}/x-aap-effect must be one of ${EFFECT_KINDS.join(', ')}`);
    lists[kind].push(key);
  }
  return lists;
}

/** The TypeScript source of the two effect lists the schema's `x-aap-effect` annotations give. */
export async function generateEffectKeys() {
  const lists = await effectKeysByKind();
  const list = (keys) => `[${keys.map((k) => `'${k}'`).join(', ')}] as const`;
  return [
    BANNER,
    '',
    '/** Rule keys whose effect may answer instead of the dealer (at most one per rule). */',
    `export const TERMINAL_EFFECTS = ${list(lists.terminal)};`,
    '/** Rule keys whose effect changes how the answer travels, in the order their reply steps run. */',
    `export const MODIFIER_EFFECTS = ${list(lists.modifier)};`,
    '',
    'export type TerminalEffectKey = (typeof TERMINAL_EFFECTS)[number];',
    'export type ModifierEffectKey = (typeof MODIFIER_EFFECTS)[number];',
    'export type EffectKey = TerminalEffectKey | ModifierEffectKey;',
    '',
  ].join('\n');
}

/** `rate_limit` → the file `rate-limit` and the factory `createRateLimitEffect`. */
const effectFile = (key) => key.replaceAll('_', '-');
const effectFactory = (key) =>
  `create${key
    .split('_')
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join('')}Effect`;

/** The TypeScript source of the registry: every effect key of the schema → its implementation. */
export async function generateEffectRegistry() {
  const lists = await effectKeysByKind();
  const all = [...lists.terminal, ...lists.modifier];
  const record = (name, kind, type, keys) => [
    `export const ${name}: Record<${kind}, (rule: Rule) => ${type}> = {`,
    ...keys.map((k) => `  ${k}: ${effectFactory(k)},`),
    '};',
  ];
  return [
    BANNER,
    '// Each effect key of the schema maps to src/effects/<key, _ as ->.ts and its create<Key>Effect.',
    "import type { Rule } from '../scenario/types.generated.js';",
    "import type { ModifierEffectKey, TerminalEffectKey } from '../scenario/effect-keys.generated.js';",
    "import type { ModifierEffect, TerminalEffect } from './effect.js';",
    ...all.map((k) => `import { ${effectFactory(k)} } from './${effectFile(k)}.js';`),
    '',
    ...record('TERMINAL_EFFECTS', 'TerminalEffectKey', 'TerminalEffect', lists.terminal),
    '',
    ...record('MODIFIER_EFFECTS', 'ModifierEffectKey', 'ModifierEffect', lists.modifier),
    '',
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outputs = [
    [outputPath, await generateScenarioTypes()],
    [effectKeysPath, await generateEffectKeys()],
    [registryPath, await generateEffectRegistry()],
  ];
  const name = (file) => file.slice(file.lastIndexOf('src'));
  if (process.argv.includes('--check')) {
    for (const [file, source] of outputs) {
      const current = await readFile(file, 'utf8').catch(() => '');
      if (current !== source) {
        console.error(`${name(file)} is stale: run node scripts/gen-scenario-types.mjs`);
        process.exit(1);
      }
    }
  } else {
    for (const [file, source] of outputs) {
      await writeFile(file, source);
      console.log(`wrote ${name(file)}`);
    }
  }
}
