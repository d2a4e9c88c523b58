// The envelope JSON Schemas in schema/, compiled once; every test that sees an error envelope
// checks it here.
import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { Profile } from '../../src/protocol/codes.js';

const load = (name: string) => JSON.parse(readFileSync(new URL(`../../schema/${name}`, import.meta.url), 'utf8'));
const ajv = new Ajv2020.default({ allErrors: true, strict: false });
addFormats.default(ajv);
ajv.addSchema(load('envelope-common.schema.json'));
const validators = {
  '1.3': ajv.compile(load('envelope-1.3.schema.json')),
  '2.0': ajv.compile(load('envelope-2.0.schema.json')),
};

/** Returns the schema's complaints about an envelope, or [] when it is valid for the profile. */
export function envelopeProblems(profile: Profile, envelope: unknown): string[] {
  const validate = validators[profile];
  if (validate(envelope)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
}
