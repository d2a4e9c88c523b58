#!/usr/bin/env node
// Writes src/scenario/types.generated.ts from schema/scenario.schema.json, so the TypeScript
// types of a scenario can never drift from what the validator accepts.
// `--check` writes nothing and exits 1 when the committed file is stale.
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { compile } from 'json-schema-to-typescript';

const schemaPath = fileURLToPath(new URL('../schema/scenario.schema.json', import.meta.url));
const outputPath = fileURLToPath(new URL('../src/scenario/types.generated.ts', import.meta.url));

const BANNER = `/* Generated from schema/scenario.schema.json by scripts/gen-scenario-types.mjs. Do not edit by hand. */`;

/** The TypeScript source the schema generates today. */
export async function generateScenarioTypes() {
  const schema = JSON.parse(await readFile(schemaPath, 'utf8'));
  return compile(schema, 'Scenario', {
    bannerComment: BANNER,
    additionalProperties: false,
    unreachableDefinitions: true,
    cwd: fileURLToPath(new URL('../schema/', import.meta.url)),
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const source = await generateScenarioTypes();
  if (process.argv.includes('--check')) {
    const current = await readFile(outputPath, 'utf8').catch(() => '');
    if (current !== source) {
      console.error('src/scenario/types.generated.ts is stale: run node scripts/gen-scenario-types.mjs');
      process.exit(1);
    }
  } else {
    await writeFile(outputPath, source);
    console.log('wrote src/scenario/types.generated.ts');
  }
}
