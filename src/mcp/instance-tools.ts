/** status, list_scenarios and switch_rule: reading and steering the instance through its admin API. */
import { z } from 'zod';
import { ruleLine, statusLines, ttlNote } from '../control/status-lines.js';
import { ruleId, ttl } from './inputs.js';
import { ruleState, ttlState } from './shapes.js';
import { answer, defineTool, onInstance } from './tool.js';

export const statusTool = defineTool({
  name: 'status',
  title: 'Status of the instance',
  description:
    'The proxy URL to point a buyer at, the dealer behind it, the profile, the scenario in force with each rule (enabled, matched, fired, effects), the safety lever, changes that undo themselves (ttl), journal and event counts — as GET /status.',
  input: z.strictObject({}),
  output: z.looseObject({
    url: z.string().describe('the proxy: point the buyer here'),
    target: z.string(),
    mock_dealer: z.boolean(),
    profile: z.string(),
    scenario: z.string().nullable(),
    seed: z.number().nullable(),
    dry_run: z.boolean(),
    rules: z.array(ruleState),
    active_faults: z.number(),
    ttl: z.array(ttlState),
    safety_lever: z.looseObject({ pulled: z.boolean() }),
    journal: z.looseObject({ entries: z.number() }),
  }),
  readOnly: true,
  run: (_args, { instance }) =>
    onInstance(async () => {
      const status = await instance.status();
      return answer(statusLines(status).join('\n'), status);
    }),
});

export const listScenariosTool = defineTool({
  name: 'list_scenarios',
  title: 'Built-in scenarios',
  description:
    "The built-in scenarios with their descriptions; use_scenario loads one by name, and each one's text is the resource aap-chaos://scenarios/NAME.yaml.",
  input: z.strictObject({}),
  output: z.object({ scenarios: z.array(z.object({ name: z.string(), description: z.string() })) }),
  readOnly: true,
  run: (_args, { instance }) =>
    onInstance(async () => {
      const scenarios = await instance.scenarios();
      return answer(scenarios.map((s) => `${s.name}: ${s.description}`).join('\n'), { scenarios });
    }),
});

export const switchRuleTool = defineTool({
  name: 'switch_rule',
  title: 'Switch a rule on or off',
  description:
    'Enable or disable one rule of the scenario in force by its id (status lists them). With `ttl` the rule goes back to its former state by itself. An unknown id is a tool error naming the rules there are.',
  input: z.strictObject({ id: ruleId.describe('the rule id'), enabled: z.boolean(), ttl: ttl.optional() }),
  output: z.looseObject({ ...ruleState.shape, ttl: ttlState.optional() }),
  readOnly: false,
  run: ({ id, enabled, ttl }, { instance }) =>
    onInstance(async () => {
      const rule = await instance.switchRule(id, enabled, ttl);
      return answer(ruleLine(rule) + ttlNote(rule.ttl), rule);
    }),
});
