/** The agent-card rules (AAP-CARD-*): what a dealer's /.well-known/agent-card.json must hold. */
import { AAP_SKILLS, isAapExtensionUri, type Profile } from '../codes.js';
import { Findings, type Finding } from './rules.js';

const REQUIRED_CARD_FIELDS = [
  'name',
  'description',
  'supportedInterfaces',
  'version',
  'capabilities',
  'defaultInputModes',
  'defaultOutputModes',
  'skills',
] as const;
const REQUIRED_SKILL_FIELDS = ['id', 'name', 'description', 'tags'] as const;
const AAP_MEDIA_TYPE = /^application\/vnd\.autoagent\.[a-z-]+-(request|response)\+json$/;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Findings for one card; `card` is the parsed JSON (or anything the dealer sent). */
export function checkCard(card: unknown, profile: Profile): Finding[] {
  const f = new Findings(profile);
  if (!isObject(card)) {
    f.expect('AAP-CARD-001', false, '', 'a JSON object', card);
    return f.list;
  }
  let fieldsOk = true;
  for (const field of REQUIRED_CARD_FIELDS) {
    if (card[field] === undefined) fieldsOk = f.expect('AAP-CARD-001', false, `/${field}`, 'present', undefined) && fieldsOk;
  }
  const skills = Array.isArray(card.skills) ? card.skills : [];
  skills.forEach((skill, i) => {
    for (const field of REQUIRED_SKILL_FIELDS) {
      if (!isObject(skill) || skill[field] === undefined) fieldsOk = f.expect('AAP-CARD-001', false, `/skills/${i}/${field}`, 'present', undefined) && fieldsOk;
    }
  });
  if (fieldsOk) f.expect('AAP-CARD-001', true, '', 'every required field', 'all present');

  const extensions = isObject(card.capabilities) && Array.isArray(card.capabilities.extensions) ? card.capabilities.extensions : [];
  const aap = extensions.map((e, i) => ({ e, i })).filter(({ e }) => isObject(e) && typeof e.uri === 'string' && isAapExtensionUri(e.uri));
  f.expect('AAP-CARD-002', aap.length === 1, '/capabilities/extensions', 'exactly one AAP extension entry', `${aap.length} AAP entries`);
  for (const { e, i } of aap) {
    f.expect('AAP-CARD-003', (e as Json).required === true, `/capabilities/extensions/${i}/required`, 'true', (e as Json).required);
  }

  const ids = skills.map((s) => (isObject(s) ? s.id : undefined));
  f.expect('AAP-CARD-004', ids.length > 0, '/skills', 'at least one AAP skill', `${ids.length} skills`);
  ids.forEach((id, i) => f.expect('AAP-CARD-004', (AAP_SKILLS as readonly unknown[]).includes(id), `/skills/${i}/id`, `one of ${AAP_SKILLS.join(', ')}`, id));

  for (const key of ['defaultInputModes', 'defaultOutputModes'] as const) {
    const modes = card[key];
    const ok = Array.isArray(modes) && modes.length > 0 && modes.every((m) => typeof m === 'string' && AAP_MEDIA_TYPE.test(m));
    f.expect('AAP-CARD-005', ok, `/${key}`, 'application/vnd.autoagent.* media types', modes);
  }

  const interfaces = Array.isArray(card.supportedInterfaces) ? card.supportedInterfaces : [];
  const jsonRpc = interfaces.findIndex((x) => isObject(x) && x.protocolBinding === 'JSONRPC' && typeof x.url === 'string' && x.url !== '');
  f.expect(
    'AAP-CARD-006',
    jsonRpc !== -1,
    '/supportedInterfaces',
    'an entry with protocolBinding JSONRPC and a url',
    interfaces.map((x) => (isObject(x) ? x.protocolBinding : x)),
  );
  return f.list;
}
