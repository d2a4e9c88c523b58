#!/usr/bin/env node
// Compiles the JSON Schemas the product validates with into plain JavaScript modules (ajv's
// standalone code), once per build instead of once per process: compiling them at start-up cost
// every CLI run and every proxy about half a second of CPU. Each set below is the one place its
// ajv options live; the modules that validate import the generated functions.
//
// Output (not committed; `npm run build` writes it): for each set, SET.generated.js and
// SET.generated.d.ts beside the module that uses it in src/, and the .js again under dist/.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import standaloneCode from 'ajv/dist/standalone/index.js';
import addFormats from 'ajv-formats';

const root = new URL('../', import.meta.url);
const readSchema = (file) => JSON.parse(readFileSync(new URL(`schema/${file}`, root), 'utf8'));

const SKILL_SLUGS = {
  'dealer.information': 'dealer-information',
  'inventory.facets': 'inventory-facets',
  'inventory.search': 'inventory-search',
  'inventory.vehicle': 'vehicle-detail',
  'lead.submit': 'lead-submit',
};

/** One validator per skill, exported under the skill's name with `_` for `.`. */
function skillSchemas(out, kind, common, options) {
  return {
    out,
    build() {
      const ajv = new Ajv2020({ ...options, code: { source: true, esm: true } });
      addFormats.default(ajv);
      ajv.addSchema(readSchema(`aap/${common}.schema.json`));
      const refs = {};
      for (const [skill, slug] of Object.entries(SKILL_SLUGS)) {
        const schema = readSchema(`aap/${slug}-${kind}.schema.json`);
        ajv.addSchema(schema);
        refs[skill.replace('.', '_')] = schema.$id;
      }
      return { ajv, refs };
    },
  };
}

const SETS = [
  {
    // The scenario document and each of its $defs (problem messages re-validate a union's branch).
    out: 'scenario/scenario-validators',
    build() {
      const ajv = new Ajv2020({
        allErrors: true,
        // verbose keeps the offending value and its schema on every error, for readable messages.
        verbose: true,
        // Fills in documented defaults (enabled: true, key: ip, profile: auto, report thresholds …).
        useDefaults: true,
        strict: true,
        // if/then schemas name required keys declared in the enclosing object, which is fine.
        strictRequired: false,
        allowUnionTypes: true,
        code: { source: true, esm: true },
      });
      addFormats.default(ajv, ['json-pointer']);
      // Marks a rule key as an effect (scripts/gen-scenario-types.mjs reads it); it validates nothing.
      ajv.addKeyword({ keyword: 'x-aap-effect', schemaType: 'string', metaSchema: { enum: ['terminal', 'modifier'] } });
      const schema = readSchema('scenario.schema.json');
      ajv.addSchema(schema);
      const refs = { scenario: schema.$id };
      for (const name of Object.keys(schema.$defs)) refs[`def_${name}`] = `${schema.$id}#/$defs/${name}`;
      return { ajv, refs };
    },
  },
  // The five skills' request schemas: the mock validates with them, the proxy journals their problems.
  // strictRequired is off: anyOf branches name properties declared beside them, which is the point.
  skillSchemas('protocol/request-validators', 'request', 'common', { allErrors: true, strict: true, strictRequired: false }),
  // The five skills' response schemas, for the conformance check of a dealer's replies.
  skillSchemas('protocol/conformance/response-validators', 'response', 'response-common', {
    allErrors: true,
    strict: true,
    strictRequired: false,
    strictTypes: false,
  }),
];

const BANNER = '/* Generated from schema/ by scripts/gen-validators.mjs at build time. Do not edit. */';

for (const set of SETS) {
  const { ajv, refs } = set.build();
  // The generated code calls require() for ajv's runtime helpers and the formats; an ES module has none of its own.
  const code = `${BANNER}\nimport { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);\n${standaloneCode.default(ajv, refs)}\n`;
  const types = `${BANNER}\nimport type { ValidateFunction } from 'ajv';\n${Object.keys(refs)
    .map((name) => `export declare const ${name}: ValidateFunction;`)
    .join('\n')}\n`;
  for (const dir of ['src', 'dist']) {
    const file = new URL(`${dir}/${set.out}.generated.js`, root);
    mkdirSync(new URL('.', file), { recursive: true });
    writeFileSync(file, code);
  }
  writeFileSync(new URL(`src/${set.out}.generated.d.ts`, root), types);
  // dist keeps declarations beside the code, as tsc does for the rest.
  writeFileSync(new URL(`dist/${set.out}.generated.d.ts`, root), types);
}
console.log(`wrote ${SETS.map((s) => `src/${s.out}.generated.js`).join(', ')} (and dist/)`);
