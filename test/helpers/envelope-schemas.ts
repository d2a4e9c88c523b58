// The envelope JSON Schemas in schema/, compiled once, and the conformance module's error rules:
// every test that sees an error envelope checks it here, so "valid by the seed" has one source.
import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { Profile } from '../../src/protocol/codes.js';
import { checkReply, violationsOf } from '../../src/protocol/conformance/index.js';

const load = (name: string) => JSON.parse(readFileSync(new URL(`../../schema/${name}`, import.meta.url), 'utf8'));
const ajv = new Ajv2020.default({ allErrors: true, strict: false });
addFormats.default(ajv);
ajv.addSchema(load('envelope-common.schema.json'));
const validators = {
  '1.3': ajv.compile(load('envelope-1.3.schema.json')),
  '2.0': ajv.compile(load('envelope-2.0.schema.json')),
};

/** The conformance rules an envelope breaks under a profile, with no request context beyond its id. */
export function conformanceProblems(profile: Profile, envelope: unknown): string[] {
  const id = (envelope as { id?: unknown } | null)?.id;
  const request = { id: typeof id === 'string' || typeof id === 'number' ? id : null, extensions: [] };
  const findings = checkReply({ profile, request, status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(envelope) });
  return violationsOf(findings).map((v) => `${v.rule} ${v.pointer || '/'}: expected ${v.expected}, seen ${v.seen}`);
}

/** Returns the schema's and the conformance rules' complaints about an envelope, or [] when it is valid for the profile. */
export function envelopeProblems(profile: Profile, envelope: unknown): string[] {
  const validate = validators[profile];
  const schema = validate(envelope) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
  return [...schema, ...conformanceProblems(profile, envelope)];
}
