/** `aap-chaos scenarios`: the built-in scenarios, one line each. */
import { listBuiltinScenarios } from '../scenario/load.js';
import type { CommandIo } from './flags.js';

export function scenariosCommand(io: CommandIo) {
  return {
    command: 'scenarios',
    describe: 'list the built-in scenarios',
    handler: async () => {
      for (const s of await listBuiltinScenarios()) io.out(`${s.name.padEnd(22)} ${s.description ?? ''}`);
    },
  };
}
