/**
 * What every tool of `aap-chaos mcp` is: a stable name, an input schema that bounds every value,
 * an output schema, and a function from checked input to a result that is both a short text for
 * the agent to read and a structured value for it to use. The instance is reached only through
 * its admin API, so every change meets the token, Host, validation and safety-lever rules there.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { AdminCallError, type AdminClient } from '../control/admin-client.js';

export interface McpContext {
  /** The instance the tools drive: one attached with --admin, or the run this process started. */
  instance: AdminClient;
  /** Origins check_dealer may probe besides loopback addresses: the --target (and --dealer URLs) given at start. */
  dealerOrigins: readonly string[];
}

export interface Tool<In extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  input: In;
  output: z.ZodObject;
  /**
   * Reads and never changes anything (a hint hosts show). A change of the instance is no
   * destructive one: every change can be undone the same way, and a TTL undoes it by itself.
   */
  readOnly: boolean;
  /** Talks to a dealer outside this process's own instance (check_dealer). */
  reachesDealer?: true;
  run(args: z.infer<In>, context: McpContext): Promise<CallToolResult>;
}

/** A tool, typed by its input schema where it is written and plain where the list holds it. */
export function defineTool<In extends z.ZodObject>(tool: Tool<In>): Tool {
  return tool as unknown as Tool;
}

/** A result: the short summary an agent reads, and the same facts structured. */
export function answer(summary: string, structured: object): CallToolResult {
  return { content: [{ type: 'text', text: summary }], structuredContent: structured as Record<string, unknown> };
}

/** A refusal the agent can act on: a tool error with the reason, then one line per problem. */
export function refusal(message: string, problems: readonly string[] = [], structured?: object): CallToolResult {
  const text = [message, ...problems.map((p) => `  ${p}`)].join('\n');
  return { isError: true, content: [{ type: 'text', text }], ...(structured ? { structuredContent: structured as Record<string, unknown> } : {}) };
}

/** Runs calls to the instance; what it refuses (a wrong token, an unknown rule, a rejected scenario) comes back as a tool error. */
export async function onInstance(call: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await call();
  } catch (e) {
    if (e instanceof AdminCallError) return refusal(e.message, e.details);
    throw e;
  }
}
