/**
 * One fresh process of bench/load-time.js. Usage: `load-time-child.js <build-dir> <scenario-file> total|object|split`.
 * The build directory holds dist/ (and schema/, package.json) of the build to measure, so two builds
 * can be compared side by side. The modules are imported before the clock starts, as in
 * bench/proxy-child.js, so module loading and schema compilation are not counted.
 *
 * - total: the time from `startRuntime({ scenario: FILE })` to serving, exactly as proxy-child's loadMs;
 * - object: the same with the scenario handed over as an object, as a library user does;
 * - split: the same work stage by stage, each stage run once and cold: reading and parsing the file,
 *   schema and semantic validation, building the engine, then starting a runtime without a scenario
 *   (listening: the proxy and the admin API).
 * Prints one JSON line on stdout.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

const [buildDir, scenarioFile, mode] = process.argv.slice(2);
const dist = (module) => import(pathToFileURL(path.join(buildDir, 'dist', module)).href);
// Nothing connects to the dealer while the runtime starts; a closed loopback port is enough.
const target = 'http://127.0.0.1:9';
const { startRuntime } = await dist('runtime.js');

if (mode === 'total' || mode === 'object') {
  // object: the scenario handed to the library as an object (parsed here, before the clock starts).
  const scenario =
    mode === 'object'
      ? (await import(pathToFileURL(path.join(buildDir, 'node_modules/yaml/dist/index.js')).href)).parse(await readFile(scenarioFile, 'utf8'))
      : scenarioFile;
  const start = performance.now();
  const runtime = await startRuntime({ target, port: 0, host: '127.0.0.1', adminPort: 0, scenario, seed: 1 });
  const totalMs = performance.now() - start;
  await runtime.close();
  console.log(JSON.stringify({ totalMs }));
} else {
  const load = await dist('scenario/load.js');
  const { createEngine } = await dist('engine/engine.js');
  const stages = await stagesOf(load, nestingGate(await dist('scenario/limits.js')));
  const t0 = performance.now();
  const text = await readFile(scenarioFile, 'utf8');
  const document = stages.parse(text, scenarioFile);
  const t1 = performance.now();
  const problems = stages.validate(document);
  const t2 = performance.now();
  if (problems.length > 0) throw new Error(`the scenario is invalid: ${JSON.stringify(problems[0])}`);
  createEngine(document, { seed: 1 });
  const t3 = performance.now();
  const runtime = await startRuntime({ target, port: 0, host: '127.0.0.1', adminPort: 0 });
  const t4 = performance.now();
  await runtime.close();
  console.log(JSON.stringify({ parseMs: t1 - t0, validateMs: t2 - t1, engineMs: t3 - t2, listenMs: t4 - t3 }));
}

/**
 * The build's check of a scenario text's nesting before its readers recurse: builds since the scan
 * ask `mayNestTooDeep` and leave deep text to the full parser, older ones threw from
 * `excessiveNestingAt`. The bench's file is shallow, so neither stops it.
 */
function nestingGate(limits) {
  if (typeof limits.mayNestTooDeep !== 'function') return limits.excessiveNestingAt;
  return (text) => {
    if (limits.mayNestTooDeep(text)) throw new Error('the nesting scan leaves this scenario to the full parser');
  };
}

/**
 * The build's own parse and validation steps. A build with fast readers (js-yaml in
 * scenario/yaml-text.js, or the older hand-written scenario/plain-yaml.js) parses with them as its
 * loadScenarioText does on the way to serving; an older one parsed with the yaml library, which is
 * repeated here the way its loadScenarioText did it.
 */
async function stagesOf(load, checkNesting) {
  const { schemaProblems } = await dist('scenario/schema-problems.js');
  const { semanticProblems } = await dist('scenario/semantic.js');
  const validate = (document) => [...schemaProblems(document), ...semanticProblems(document)];
  const readYaml =
    (await dist('scenario/yaml-text.js').catch(() => undefined))?.readYamlText ?? (await dist('scenario/plain-yaml.js').catch(() => undefined))?.readPlainYaml;
  if (readYaml) {
    const { readJsonText } = await dist('scenario/json-text.js');
    return {
      parse: (text) => {
        checkNesting(text);
        const read = readJsonText(text) ?? readYaml(text);
        if (!read) throw new Error('the fast readers leave this scenario to the full parser');
        return read.value;
      },
      validate,
    };
  }
  const { LineCounter, parseDocument } = await import(pathToFileURL(path.join(buildDir, 'node_modules/yaml/dist/index.js')).href);
  return {
    parse: (text) => {
      checkNesting(text);
      const doc = parseDocument(text, { lineCounter: new LineCounter(), prettyErrors: false, uniqueKeys: true });
      return doc.toJS({ maxAliasCount: 100 });
    },
    validate: (document) => [...schemaProblems(document), ...semanticProblems(document)],
  };
}
