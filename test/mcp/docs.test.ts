// docs/mcp.md names every tool of `aap-chaos mcp`, each with an example call whose arguments the
// tool's own input schema accepts, so the page cannot drift from what the server takes.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { TOOLS } from '../../src/mcp/server.js';

const doc = readFileSync(new URL('../../docs/mcp.md', import.meta.url), 'utf8');

for (const tool of TOOLS) {
  t.test(`docs/mcp.md: ${tool.name}`, async (t) => {
    const heading = `\n### \`${tool.name}\`\n`;
    const start = doc.indexOf(heading);
    t.ok(start >= 0, 'has a section of its own');
    const rest = doc.slice(start + heading.length);
    const section = rest.slice(0, rest.search(/\n##+ /));
    t.match(doc, `| [\`${tool.name}\`](#${tool.name}) |`, 'is in the table of tools');
    const calls = [...section.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!) as { name: string; arguments: unknown });
    t.ok(calls.length > 0, 'has an example call');
    for (const call of calls) {
      t.equal(call.name, tool.name);
      const parsed = tool.input.safeParse(call.arguments);
      t.ok(parsed.success, `the example's arguments are valid: ${parsed.error?.message ?? ''}`);
    }
  });
}
