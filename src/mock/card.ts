/** The mock dealer's A2A v1.0 agent card, built per request so its interface URL is the address the buyer used. */
import type { Profile } from '../protocol/codes.js';
import type { DealerInfo } from './vehicle.js';
import { SKILL_IDS, SKILL_TABLE, requestMediaType, responseMediaType } from './skill-table.js';

export const AGENT_CARD_PATH = '/.well-known/agent-card.json';
export const RPC_PATH = '/a2a';

export interface CardOptions {
  profile: Profile;
  extensionUri: string;
  streaming: boolean;
  dealer: DealerInfo;
  /** `host[:port]` the buyer reached (its Host header). */
  host: string;
}

/** Where the published request/response schemas of a skill live (v1.3 has a versioned tree, the draft "latest"). */
function schemaUrl(profile: Profile, slug: string, kind: 'request' | 'response'): string {
  const tree = profile === '1.3' ? 'v1.3' : 'latest';
  return `https://autoagentprotocol.org/${tree}/schemas/${slug}-${kind}.schema.json`;
}

export function buildAgentCard(opts: CardOptions): Record<string, unknown> {
  const skillParams = Object.fromEntries(
    SKILL_IDS.map((id) => [
      id,
      { request_schema: schemaUrl(opts.profile, SKILL_TABLE[id].slug, 'request'), response_schema: schemaUrl(opts.profile, SKILL_TABLE[id].slug, 'response') },
    ]),
  );
  return {
    name: opts.dealer.name,
    description: `${opts.dealer.name}: an AAP dealer agent (the aap-chaos mock dealer) serving a deterministic test inventory.`,
    version: '1.0.0',
    supportedInterfaces: [{ url: `http://${opts.host}${RPC_PATH}`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: {
      streaming: opts.streaming,
      pushNotifications: false,
      extendedAgentCard: false,
      extensions: [
        {
          uri: opts.extensionUri,
          description: 'Auto Agent Protocol: automotive retail skills over A2A.',
          // Only the 2.0 mock enforces activation (-32008), so only its card says required; the 1.3
          // binding never mentions the A2A headers and the 1.3 mock serves requests without them.
          required: opts.profile === '2.0',
          params: { version: opts.profile === '1.3' ? '1.3.0' : '2.0.0-draft', skills: skillParams },
        },
      ],
    },
    defaultInputModes: SKILL_IDS.map(requestMediaType),
    defaultOutputModes: SKILL_IDS.map(responseMediaType),
    skills: SKILL_IDS.map((id) => ({
      id,
      name: SKILL_TABLE[id].name,
      description: SKILL_TABLE[id].description,
      tags: SKILL_TABLE[id].tags,
      inputModes: [requestMediaType(id)],
      outputModes: [responseMediaType(id)],
    })),
  };
}
