/**
 * Loading a scenario: parse YAML or JSON (one YAML 1.2 parser, which keeps positions for both;
 * JSON.parse and js-yaml read most files faster first), validate against the schema, run the
 * semantic checks, and report every problem at once as `file:line:col  /json/pointer  message`.
 * Nothing here throws on bad input.
 */
import path from 'node:path';
import type { Document } from 'yaml';
import { yamlLibrary } from './yaml-library.js';
import {
  mayNestTooDeep,
  MAX_ALIAS_EXPANSIONS,
  objectNestingExceeded,
  scenarioLimits,
  TOO_DEEP_MESSAGE,
  tooLargeMessage,
  tooManyRulesMessage,
} from './limits.js';
import { DocumentPositions } from './positions.js';
import { readScenarioFileText } from './file-text.js';
import { parseYamlDocument } from './yaml-document.js';
import { readJsonText } from './json-text.js';
import { readYamlText } from './yaml-text.js';
import { schemaProblems, type LocatedMessage } from './schema-problems.js';
import { semanticProblems } from './semantic.js';
import { resolveScenarioRef, BUILTIN_SCENARIO_DIR } from './builtin.js';
import type { Scenario } from './types.generated.js';

export { resolveScenarioRef, listBuiltinScenarios, BUILTIN_SCENARIO_DIR } from './builtin.js';
export type { ResolvedScenarioRef, BuiltinScenarioInfo } from './builtin.js';
export { configureScenarioLimits, DEFAULT_SCENARIO_LIMITS, type ScenarioLimits } from './limits.js';
export type { Scenario, Rule } from './types.generated.js';

export interface ScenarioProblem {
  file: string;
  /** 1-based; 0 when the problem concerns the file as a whole (it cannot be read). */
  line: number;
  col: number;
  /** JSON Pointer of the offending value; empty for the document itself and for syntax errors. */
  path: string;
  message: string;
}

export type LoadResult = { ok: true; scenario: Scenario } | { ok: false; problems: ScenarioProblem[] };

export function formatProblem(p: ScenarioProblem): string {
  const where = p.line > 0 ? `${p.file}:${p.line}:${p.col}` : p.file;
  return p.path ? `${where}  ${p.path}  ${p.message}` : `${where}  ${p.message}`;
}

/** Parses and validates scenario text; `sourceName` names it in problems and gives the default scenario name. */
export function loadScenarioText(text: string, sourceName: string): LoadResult {
  const whole = (message: string): LoadResult => ({ ok: false, problems: [{ file: sourceName, line: 0, col: 0, path: '', message }] });
  const bytes = Buffer.byteLength(text);
  if (bytes > scenarioLimits().maxBytes) return whole(tooLargeMessage(bytes));
  // Most scenarios are plain JSON or YAML, which JSON.parse and js-yaml turn into the same document
  // as the full parser, several times faster and without positions. Positions are needed only to
  // report a problem: then, and for any text the fast readers leave alone, the full parser reads the
  // text once more. The fast readers recurse once per level, so they only read text the scan proves
  // shallow; the full parser measures the nesting itself before it recurses.
  if (!mayNestTooDeep(text)) {
    const quick = readJsonText(text) ?? readYamlText(text);
    if (quick) {
      const checked = checkScenarioDocument(quick.value, sourceName);
      if (checked.ok) return checked;
    }
  }
  return loadWithPositions(text, sourceName);
}

/** The full YAML parse, which keeps the position of every node so that each problem names its line. */
function loadWithPositions(text: string, sourceName: string): LoadResult {
  const parsed = parseYamlDocument(text);
  if ('tooDeepAt' in parsed)
    return { ok: false, problems: [{ file: sourceName, ...parsed.lines.linePos(parsed.tooDeepAt), path: '', message: TOO_DEEP_MESSAGE }] };
  const { doc, lines } = parsed;
  const positions = new DocumentPositions(doc, lines);

  if (doc.errors.length > 0) {
    const problems = doc.errors.map((e) => ({ file: sourceName, ...positions.at(e.pos[0]), path: '', message: `syntax error: ${e.message}` }));
    return { ok: false, problems };
  }

  let document: unknown;
  try {
    document = doc.toJS({ maxAliasCount: MAX_ALIAS_EXPANSIONS });
  } catch {
    // The parser refuses an alias bomb (aliases expanding to aliases) without saying where.
    return {
      ok: false,
      problems: [
        {
          file: sourceName,
          ...positions.at(firstAliasOffset(doc)),
          path: '',
          message: `YAML aliases expand more than ${MAX_ALIAS_EXPANSIONS} times (an alias bomb?); write the values out instead`,
        },
      ],
    };
  }
  // Aliases can nest a collection inside another past the limit the text itself keeps to.
  if (objectNestingExceeded(document))
    return { ok: false, problems: [{ file: sourceName, ...positions.at(firstAliasOffset(doc)), path: '', message: TOO_DEEP_MESSAGE }] };
  return checkScenarioDocument(document, sourceName, positions);
}

/**
 * The checks on a parsed document: not empty, not too many rules, the schema, the semantic checks.
 * Without `positions` (a fast read) a failure carries no problems of its own: the caller parses
 * again with positions and reports from that.
 */
function checkScenarioDocument(document: unknown, sourceName: string, positions?: DocumentPositions): LoadResult {
  if (document === null || document === undefined)
    return {
      ok: false,
      problems: positions
        ? [{ file: sourceName, line: 1, col: 1, path: '', message: 'the file is empty; a scenario is an object (at least `rules: []`)' }]
        : [],
    };

  const rules = (document as { rules?: unknown }).rules;
  if (Array.isArray(rules) && rules.length > scenarioLimits().maxRules)
    return {
      ok: false,
      problems: positions ? [{ file: sourceName, ...positions.locate('/rules', 'key'), path: '/rules', message: tooManyRulesMessage(rules.length) }] : [],
    };

  const located = scenarioDocumentProblems(document);
  if (located.length > 0) {
    if (!positions) return { ok: false, problems: [] };
    const problems = dedupe(located.map((p) => ({ file: sourceName, ...positions.locate(p.path, p.anchor), path: p.path, message: p.message })));
    problems.sort((a, b) => a.line - b.line || a.col - b.col || a.path.localeCompare(b.path));
    return { ok: false, problems };
  }

  const scenario = document as Scenario;
  scenario.scenario ??= path.basename(sourceName).replace(/\.(ya?ml|json)$/i, '');
  return { ok: true, scenario };
}

/** Schema and semantic problems of a parsed document, each with the JSON Pointer it concerns (defaults are filled in). */
function scenarioDocumentProblems(document: unknown): LocatedMessage[] {
  return [...schemaProblems(document), ...semanticProblems(document)];
}

function firstAliasOffset(doc: Document.Parsed): number {
  let offset = 0;
  const { visit } = yamlLibrary();
  visit(doc, {
    Alias(_key, node) {
      offset = node.range?.[0] ?? 0;
      return visit.BREAK;
    },
  });
  return offset;
}

function dedupe(problems: ScenarioProblem[]): ScenarioProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = formatProblem(p);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export async function loadScenarioFile(file: string): Promise<LoadResult> {
  const read = await readScenarioFileText(file);
  if (!read.ok) return { ok: false, problems: [{ file, line: 0, col: 0, path: '', message: read.message }] };
  return loadScenarioText(read.text, file);
}

/** Loads `--scenario` input: a built-in name (`rate-limit-storm`) or a file path. */
export async function loadScenarioRef(nameOrPath: string, builtinDir: string = BUILTIN_SCENARIO_DIR): Promise<LoadResult> {
  const resolved = await resolveScenarioRef(nameOrPath, builtinDir);
  if (!resolved.ok) return { ok: false, problems: [{ file: nameOrPath, line: 0, col: 0, path: '', message: resolved.message }] };
  return loadScenarioFile(resolved.path);
}

/** `aap-chaos validate FILE…`: one line per problem, then a summary; ok is false when any file is bad. */
export async function validateFiles(paths: readonly string[], builtinDir: string = BUILTIN_SCENARIO_DIR): Promise<{ ok: boolean; output: string }> {
  const lines: string[] = [];
  let invalid = 0;
  let problemCount = 0;
  for (const ref of paths) {
    const result = await loadScenarioRef(ref, builtinDir);
    if (result.ok) continue;
    invalid += 1;
    problemCount += result.problems.length;
    lines.push(...result.problems.map(formatProblem));
  }
  const files = `${paths.length} ${paths.length === 1 ? 'file' : 'files'}`;
  lines.push(
    invalid === 0 ? `${files} checked: all valid` : `${files} checked: ${invalid} invalid, ${problemCount} ${problemCount === 1 ? 'problem' : 'problems'}`,
  );
  return { ok: invalid === 0 && paths.length > 0, output: lines.join('\n') + '\n' };
}
