/**
 * The resources an agent reads to write a scenario without guessing: the scenario JSON Schema,
 * the built-in scenarios' texts and docs/scenarios.md. Each is a file of the package, found by a
 * name fixed here when the server starts; a request names one of these URIs and nothing else.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILTIN_SCENARIO_DIR, listBuiltinScenarios } from '../scenario/builtin.js';

export interface PackageResource {
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: string;
  /** The package file it is read from. */
  file: string;
}

/** The package's root, the same from src/mcp and dist/mcp. */
const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export const SCENARIO_SCHEMA_URI = 'aap-chaos://schema/scenario.schema.json';
export const SCENARIO_DOCS_URI = 'aap-chaos://docs/scenarios.md';
export const builtinScenarioUri = (name: string): string => `aap-chaos://scenarios/${name}.yaml`;

export async function packageResources(): Promise<PackageResource[]> {
  const builtins = (await listBuiltinScenarios()).map(
    ({ name, description }): PackageResource => ({
      uri: builtinScenarioUri(name),
      name: `scenario-${name}`,
      title: `Built-in scenario ${name}`,
      description,
      mimeType: 'application/yaml',
      file: path.join(BUILTIN_SCENARIO_DIR, `${name}.yaml`),
    }),
  );
  return [
    {
      uri: SCENARIO_SCHEMA_URI,
      name: 'scenario-schema',
      title: 'Scenario JSON Schema',
      description: 'The JSON Schema (2020-12) every scenario is validated against: every key, effect and bound, with descriptions.',
      mimeType: 'application/schema+json',
      file: path.join(PACKAGE_ROOT, 'schema', 'scenario.schema.json'),
    },
    {
      uri: SCENARIO_DOCS_URI,
      name: 'scenario-docs',
      title: 'Writing scenarios (docs/scenarios.md)',
      description: 'How rules, match, key, when and each effect work, with examples that validate.',
      mimeType: 'text/markdown',
      file: path.join(PACKAGE_ROOT, 'docs', 'scenarios.md'),
    },
    ...builtins,
  ];
}

export async function readPackageResource(resource: PackageResource): Promise<string> {
  return readFile(resource.file, 'utf8');
}
