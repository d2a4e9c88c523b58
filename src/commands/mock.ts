/** `aap-chaos mock`: the embedded mock dealer on its own, e.g. as the --target of a proxy elsewhere. */
import type { Argv } from 'yargs';
import { MOCK_OPTIONS, RUN_OPTIONS } from '../options.js';
import { declareFlags, flagValues, type CommandIo } from './flags.js';

/** The proxy's rows where the flag is the same, described for a dealer that stands alone. */
const MOCK_COMMAND_FLAGS = {
  port: { ...RUN_OPTIONS.port, default: '8090', describe: 'port of the mock dealer (0 = any free port)' },
  host: { ...RUN_OPTIONS.host, describe: 'address of the mock dealer' },
  profile: { ...MOCK_OPTIONS.profile, flag: 'profile', default: '1.3', describe: 'AAP profile the dealer speaks: its card, error envelopes and header rules' },
  streaming: { ...MOCK_OPTIONS.streaming, describe: 'also serve SendStreamingMessage as a task stream (the card says streaming: true)' },
  inventoryFile: { ...MOCK_OPTIONS.inventoryFile, describe: 'JSON inventory file to serve instead of the generated one' },
  extensionUri: { ...MOCK_OPTIONS.extensionUri, describe: 'AAP extension URI the card declares (default: the v1.3 URI, or the 2.0 draft placeholder)' },
  seed: { ...RUN_OPTIONS.seed, describe: 'seed of the generated inventory, 0-4294967295 (same seed, same vehicles)' },
  signCard: {
    ...MOCK_OPTIONS.signCard,
    flag: 'sign-card',
    describe:
      'private key (PKCS#8 PEM or JWK file; EC P-256, Ed25519 or RSA) that signs the agent card; its public half is served at /.well-known/aap-chaos/jwks.json',
  },
  headerTimeoutMs: RUN_OPTIONS.headerTimeoutMs,
  bodyTimeoutMs: RUN_OPTIONS.bodyTimeoutMs,
} as const;

export function mockCommand(io: CommandIo) {
  return {
    command: 'mock',
    describe: 'serve the embedded mock dealer alone',
    builder: (y: Argv) =>
      declareFlags(
        y.usage('$0 mock [options]\n\nServe the embedded AAP mock dealer on its own (no proxy), e.g. as the --target of a proxy elsewhere.'),
        io,
        MOCK_COMMAND_FLAGS,
      ),
    handler: async (argv: Record<string, unknown>) => {
      const { headerTimeoutMs, bodyTimeoutMs, ...opts } = flagValues(io, MOCK_COMMAND_FLAGS, argv);
      // Loaded on use: the dealer's modules cost the other commands nothing.
      const [{ startMockDealer }, { closeOnSignals }, { CARD_JWKS_PATH }] = await Promise.all([
        import('../mock/index.js'),
        import('../runtime.js'),
        import('../protocol/card-signature.js'),
      ]);
      try {
        const mock = await startMockDealer({ ...opts, timeouts: { headerTimeoutMs, bodyTimeoutMs } });
        io.out(
          `mock dealer (AAP ${opts.profile}, extension ${mock.dealer.extensionUri}) on ${mock.url}; agent card at ${mock.url}/.well-known/agent-card.json`,
        );
        const key = mock.dealer.cardSigningKey;
        if (key) io.out(`agent card signed (${key.alg}, kid ${key.kid}); public key at ${mock.url}${CARD_JWKS_PATH}`);
        closeOnSignals({ close: () => mock.close() }, { log: io.out });
      } catch (e) {
        io.fail((e as Error).message);
      }
    },
  };
}
