/**
 * validate_scenario and use_scenario: scenario text is checked by the same loader as
 * `aap-chaos validate` and `PUT /scenario`, so every problem has its line, column and JSON
 * Pointer. A scenario comes in as text or as a built-in's name, never as a path.
 */
import { z } from 'zod';
import { jsonBody, type AdminBody } from '../control/admin-client.js';
import { ttlNote } from '../control/status-lines.js';
import { formatProblem, loadScenarioText, type ScenarioProblem } from '../scenario/load.js';
import { builtinName, scenarioText, ttl } from './inputs.js';
import { answer, defineTool, onInstance, refusal } from './tool.js';

/** What problems name as their file. */
const SOURCE_NAME = 'scenario';

const problem = z.object({
  line: z.number().describe('1-based; 0 when the problem concerns the text as a whole'),
  column: z.number(),
  pointer: z.string().describe('JSON Pointer of the offending value; empty for the document and for syntax errors'),
  message: z.string(),
});

function structuredProblem(p: ScenarioProblem): z.infer<typeof problem> {
  return { line: p.line, column: p.col, pointer: p.path, message: p.message };
}

function problemCount(n: number): string {
  return `${n} ${n === 1 ? 'problem' : 'problems'}`;
}

export const validateScenarioTool = defineTool({
  name: 'validate_scenario',
  title: 'Validate a scenario',
  description:
    'Check scenario text (YAML or JSON) against the scenario schema and the semantic checks, without loading it. Answers every problem at once, each with line, column and JSON Pointer. The schema is the resource aap-chaos://schema/scenario.schema.json.',
  input: z.strictObject({ text: scenarioText.describe('the scenario, as YAML or JSON text') }),
  output: z.object({
    valid: z.boolean(),
    scenario: z.string().optional().describe('its name, when valid'),
    rules: z.number().optional().describe('how many rules, when valid'),
    problems: z.array(problem),
  }),
  readOnly: true,
  async run({ text }) {
    const loaded = loadScenarioText(text, SOURCE_NAME);
    if (loaded.ok) {
      const rules = loaded.scenario.rules?.length ?? 0;
      return answer(`valid: scenario ${loaded.scenario.scenario}, ${rules} ${rules === 1 ? 'rule' : 'rules'}`, {
        valid: true,
        scenario: loaded.scenario.scenario,
        rules,
        problems: [],
      });
    }
    const problems = loaded.problems;
    return answer([`invalid: ${problemCount(problems.length)}`, ...problems.map((p) => `  ${formatProblem(p)}`)].join('\n'), {
      valid: false,
      problems: problems.map(structuredProblem),
    });
  },
});

export const useScenarioTool = defineTool({
  name: 'use_scenario',
  title: 'Load a scenario',
  description:
    'Replace the scenario in force, as PUT /scenario does: give either `name` (a built-in, see list_scenarios) or `text` (YAML or JSON). Never a file path. With `ttl` the scenario in force before comes back by itself. A refused scenario is a tool error listing its problems, and the scenario in force is kept.',
  input: z.strictObject({
    name: builtinName.optional().describe('a built-in scenario, e.g. rate-limit-storm'),
    text: scenarioText.optional().describe('a scenario as YAML or JSON text'),
    ttl: ttl.optional(),
  }),
  output: z.object({
    scenario: z.string().optional(),
    seed: z.number().optional(),
    rules: z.array(z.looseObject({ id: z.string(), enabled: z.boolean() })).optional(),
    scenario_version: z.number().optional(),
    ttl: z.looseObject({}).optional(),
    problems: z.array(problem).optional().describe('when refused: every problem of the text'),
  }),
  readOnly: false,
  async run({ name, text, ttl }, { instance }) {
    if ((name === undefined) === (text === undefined)) return refusal('give either "name" (a built-in scenario) or "text" (YAML or JSON), not both or neither');
    let body: AdminBody = jsonBody({ name });
    if (text !== undefined) {
      // Checked here first with the loader the instance runs, so each problem keeps its line, column and pointer.
      const loaded = loadScenarioText(text, SOURCE_NAME);
      if (!loaded.ok)
        return refusal(`scenario rejected (${problemCount(loaded.problems.length)}); the scenario in force is kept`, loaded.problems.map(formatProblem), {
          problems: loaded.problems.map(structuredProblem),
        });
      body = { contentType: 'application/yaml', text };
    }
    return onInstance(async () => {
      const loaded = await instance.useScenario(body, ttl);
      const n = loaded.rules.length;
      return answer(`scenario ${loaded.scenario} loaded (seed ${loaded.seed}, ${n} ${n === 1 ? 'rule' : 'rules'})${ttlNote(loaded.ttl)}`, loaded);
    });
  },
});
