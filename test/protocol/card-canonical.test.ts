// The canonical card (what an A2A v1.0 card signature covers) against @a2a-js/sdk's own
// canonicalizeAgentCard, byte for byte: the mock dealer's cards, cards with every security scheme
// and OAuth flow, snake_case names, defaults, unknown fields, odd values, and many random cards.
import t from 'tap';
import { canonicalizeAgentCard } from '@a2a-js/sdk';
import { CardCanonicalError, canonicalCardPayload } from '../../src/protocol/card-canonical.js';
import { buildAgentCard, Inventory } from '../../src/mock/index.js';
import { AAP_EXTENSION_URI_1_3, AAP_EXTENSION_URI_2_0_DRAFT } from '../../src/protocol/codes.js';
import { SeededRandom } from '../../src/common/random.js';

const dealer = Inventory.fromSeed(1).dealer;
const mockCard = (profile: '1.3' | '2.0', streaming: boolean) =>
  buildAgentCard({ profile, extensionUri: profile === '1.3' ? AAP_EXTENSION_URI_1_3 : AAP_EXTENSION_URI_2_0_DRAFT, streaming, dealer, host: '127.0.0.1:9' });

const securityCard = {
  name: 'Secure Motors',
  description: '',
  version: '2',
  provider: { url: 'https://p.example', organization: 'Ö Motors' },
  documentation_url: 'https://docs.example',
  icon_url: '',
  security_schemes: {
    key: { api_key_security_scheme: { location: 'header', name: 'x-api-key' } },
    bearer: { httpAuthSecurityScheme: { scheme: 'bearer', bearer_format: 'JWT', description: '' } },
    oauth: {
      oauth2SecurityScheme: {
        flows: { authorization_code: { authorization_url: 'https://a', token_url: 'https://t', scopes: { read: 'Read', n: 1 }, pkce_required: true } },
      },
    },
    cc: { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: 'https://t', refreshUrl: '' } }, oauth2MetadataUrl: 'https://m' } },
    implicit: { oauth2SecurityScheme: { flows: { implicit: { authorizationUrl: 'https://a', scopes: {} } } } },
    password: { oauth2SecurityScheme: { flows: { password: { tokenUrl: 'https://t' } } } },
    device: { oauth2SecurityScheme: { flows: { device_code: { device_authorization_url: 'https://d', tokenUrl: 'https://t' } } } },
    oidc: { open_id_connect_security_scheme: { open_id_connect_url: 'https://o' } },
    mtls: { mtlsSecurityScheme: { description: 'client certificates' } },
    both: { apiKeySecurityScheme: { name: 'first' }, httpAuthSecurityScheme: { scheme: 'second' } },
    none: {},
  },
  security_requirements: [{ schemes: { key: { list: ['a', 'b'] }, bearer: {}, oauth: null } }, {}],
  supported_interfaces: [{ url: 'https://x/a2a', protocol_binding: 'JSONRPC', tenant: 't', protocol_version: '1.0' }],
  capabilities: {
    push_notifications: true,
    extended_agent_card: false,
    extensions: [{ uri: 'u', required: 'yes', params: { a: [], b: '', c: { d: null }, e: [1, '', null, {}], f: 0, g: false } }],
  },
  default_input_modes: ['text/plain', 7],
  skills: [{ id: 's', name: 'n', description: 'd', tags: [], examples: ['x'], input_modes: ['a'], output_modes: [], security_requirements: [{ schemes: {} }] }],
  signatures: [{ protected: 'p', signature: 's', header: { kid: 'k' } }],
  url: 'https://v03.example/a2a',
  additionalInterfaces: [{ url: 'https://v03.example/b' }],
  protocolVersion: '0.3.0',
  unknownField: { anything: true },
};

const oddCards: [string, unknown][] = [
  ['the mock card, 1.3 (extension not required)', mockCard('1.3', false)],
  ['the mock card, 2.0, streaming', mockCard('2.0', true)],
  ['every security scheme and OAuth flow, snake_case names, defaults and unknown fields', securityCard],
  ['an empty card', {}],
  ['primitives where messages belong', { name: 12, capabilities: 'yes', provider: 5, skills: ['a', 3], supportedInterfaces: 'no', version: true }],
  ['camelCase wins over snake_case', { defaultInputModes: ['camel'], default_input_modes: ['snake'], iconUrl: 'camel', icon_url: 'snake' }],
  ['a snake_case list used when the camelCase one is no list', { defaultInputModes: 'x', default_input_modes: ['snake'] }],
  [
    'numbers in params',
    { capabilities: { extensions: [{ uri: 'u', params: { big: 1e21, small: 1e-7, neg: -0, sum: 0.1 + 0.2, int: 123456789012345680000 } }] } },
  ],
  [
    'unicode keys and text',
    { name: 'é😀\u2028\u0000"\\', capabilities: { extensions: [{ uri: 'u', params: { é: 1, z: 2, Z: 3, '😀': 4, '｡': 5, '10': 6, '2': 7 } }] } },
  ],
];

t.test('the canonical card is the SDK canonical card, byte for byte', async (t) => {
  for (const [name, card] of oddCards) t.equal(canonicalCardPayload(card), canonicalizeAgentCard(card as never), name);
});

/** A random value that could appear in a card, from a seeded generator. */
function randomCard(random: () => number): unknown {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const scalar = () => pick(['', 'x', 'Ωμ', 0, 1.5, -3, true, false, null, '😀']);
  const value = (depth: number): unknown => {
    const r = random();
    if (depth > 3 || r < 0.5) return scalar();
    if (r < 0.75) return Array.from({ length: Math.floor(random() * 3) }, () => value(depth + 1));
    return Object.fromEntries(Array.from({ length: Math.floor(random() * 3) }, () => [pick(['a', 'b', 'url', 'name', 'params', 'list']), value(depth + 1)]));
  };
  const strings = () => Array.from({ length: Math.floor(random() * 3) }, () => pick(['a', '', 'b/c']));
  return {
    ...(random() < 0.8 ? { name: pick(['A', '', 'Mock']) } : {}),
    description: pick(['', 'd']),
    supportedInterfaces: Array.from({ length: Math.floor(random() * 3) }, () => ({
      url: pick(['http://a', '']),
      protocolBinding: pick(['JSONRPC', 'GRPC', '']),
      extra: value(0),
    })),
    capabilities: {
      streaming: pick([true, false, undefined, 'x']),
      extensions: Array.from({ length: Math.floor(random() * 3) }, () => ({ uri: pick(['u', '']), required: pick([true, false, 0, 1]), params: value(0) })),
    },
    defaultInputModes: strings(),
    skills: Array.from({ length: Math.floor(random() * 3) }, () => ({ id: pick(['s', '']), tags: strings(), other: value(0) })),
    [pick(['x', 'y', 'url'])]: value(0),
  };
}

t.test('random cards: the canonical card is the SDK canonical card', async (t) => {
  const seeded = new SeededRandom(38);
  const random = () => seeded.next();
  let same = 0;
  const cards = 500;
  for (let i = 0; i < cards; i++) {
    const card = randomCard(random);
    const ours = canonicalCardPayload(card);
    const theirs = canonicalizeAgentCard(card as never);
    if (ours === theirs) same++;
    else t.fail(`card ${i} differs`, { card, ours, theirs });
  }
  t.equal(same, cards, `${cards} random cards, the same canonical text`);
});

t.test('a card no signature can cover is refused, as the SDK refuses it', async (t) => {
  for (const card of [null, { skills: [null] }, { securitySchemes: { a: null } }]) {
    t.throws(() => canonicalCardPayload(card), CardCanonicalError, JSON.stringify(card));
    t.throws(() => canonicalizeAgentCard(card as never), 'the SDK throws too');
  }
  t.throws(() => canonicalCardPayload({ name: 'lone \ud800 surrogate' }), CardCanonicalError, 'JCS refuses a lone surrogate');
  let deep: unknown = 'x';
  for (let i = 0; i < 100_000; i++) deep = { d: deep };
  t.throws(() => canonicalCardPayload({ capabilities: { extensions: [{ uri: 'u', params: deep }] } }), CardCanonicalError, 'params nested past the stack');
  t.equal(
    canonicalCardPayload({ securityRequirements: [{ schemes: { a: null } }] }),
    canonicalizeAgentCard({ securityRequirements: [{ schemes: { a: null } }] } as never),
    'a null StringList reads as empty, as in the SDK',
  );
});

t.test('signatures are never covered', async (t) => {
  const card = mockCard('1.3', false);
  t.equal(canonicalCardPayload({ ...card, signatures: [{ protected: 'a', signature: 'b' }] }), canonicalCardPayload(card));
});
