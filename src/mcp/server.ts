/**
 * The MCP server of `aap-chaos mcp`: its tools and resources on the SDK's McpServer, spoken over
 * stdio. Nothing but the protocol goes to stdout; the command sends its own lines to stderr.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { VERSION } from '../runtime/version.js';
import { checkDealerTool } from './check-dealer.js';
import { explainErrorTool } from './explain-error.js';
import { listScenariosTool, statusTool, switchRuleTool } from './instance-tools.js';
import { MAX_ARGUMENT_VALUES, MAX_MESSAGE_BYTES } from './inputs.js';
import { journalTool, reportTool } from './journal-tools.js';
import { packageResources, readPackageResource } from './resources.js';
import { useScenarioTool, validateScenarioTool } from './scenario-tools.js';
import type { McpContext, Tool } from './tool.js';

/** Every tool, in the order hosts list them; the names are stable. */
export const TOOLS: readonly Tool[] = [
  statusTool,
  listScenariosTool,
  validateScenarioTool,
  useScenarioTool,
  switchRuleTool,
  journalTool,
  reportTool,
  explainErrorTool,
  checkDealerTool,
];

const INSTRUCTIONS = `aap-chaos is a fault-injection proxy in front of an AAP dealer agent. Point the buyer agent under test at the proxy URL that \`status\` gives, load faults with \`use_scenario\` (a built-in from \`list_scenarios\`, or YAML you write: read the resource aap-chaos://schema/scenario.schema.json and check it with \`validate_scenario\`), drive the buyer, then read \`journal\` and \`report\`: each FAIL names its evidence (journal line ids) and what to change. \`explain_error\` reads an error envelope the buyer got and says what a correct buyer does next.`;

export async function createMcpServer(context: McpContext): Promise<McpServer> {
  const server = new McpServer(
    { name: 'aap-chaos', version: VERSION },
    { instructions: INSTRUCTIONS, maxToolInputElements: MAX_ARGUMENT_VALUES, capabilities: { tools: {}, resources: {} } },
  );
  for (const tool of TOOLS)
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        outputSchema: tool.output,
        annotations: { readOnlyHint: tool.readOnly, destructiveHint: false, openWorldHint: tool.reachesDealer ?? false },
      },
      (args: unknown) => tool.run(args as never, context),
    );
  for (const resource of await packageResources())
    server.registerResource(
      resource.name,
      resource.uri,
      { title: resource.title, description: resource.description, mimeType: resource.mimeType },
      async () => ({ contents: [{ uri: resource.uri, mimeType: resource.mimeType, text: await readPackageResource(resource) }] }),
    );
  return server;
}

/** Serves on stdin and stdout until the host closes stdin; then `onEnd` runs once. */
export async function serveOnStdio(context: McpContext, onEnd: () => void): Promise<void> {
  const server = await createMcpServer(context);
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    onEnd();
  };
  server.server.onclose = end;
  process.stdin.once('end', end);
  process.stdin.once('close', end);
  await server.connect(new StdioServerTransport(process.stdin, process.stdout, { maxBufferSize: MAX_MESSAGE_BYTES }));
}
