/** The staging controls of a run (safety lever, TTLs, guardrails, audit log), wired to its scenario and proxy. */
import { StagingControls } from '../staging/controls.js';
import type { Scenario } from '../scenario/load.js';
import { FleetControl } from '../state/fleet-control.js';
import type { Front, Sinks } from './front.js';
import type { LiveScenario } from './live-scenario.js';
import type { StartedParts } from './started-parts.js';
import type { StartOptions } from './start-options.js';

export async function startStaging(
  { opts, log }: StartOptions,
  scenario: LiveScenario,
  front: Front,
  { hub, metrics }: Sinks,
  parts: StartedParts,
): Promise<StagingControls> {
  const fleet = scenario.fleet;
  const staging = new StagingControls(
    {
      replica: fleet?.replica ?? opts.replicaId,
      log,
      hub,
      metrics,
      current: () => scenario.current(),
      restore: (definition) => scenario.restore(definition),
      setRule: (id, enabled) => scenario.setRule(id, enabled),
      ruleEnabled: (id) => scenario.ruleEnabled(id),
      leverMoved(state) {
        // The lever forces dry run; releasing it gives back what the operator had chosen.
        front.listener.dryRun = state.pulled || front.operatorDryRun;
        const haltedBy = state.pulled ? (state.halted_by ?? `safety lever (${state.by ?? 'unknown'})`) : undefined;
        for (const p of front.proxies()) p.haltedBy = haltedBy;
      },
    },
    {
      auditFile: opts.auditFile,
      auditRotation: { maxBytes: opts.auditMaxBytes, keep: opts.auditKeep, compress: opts.auditCompress },
      maxTtlMs: opts.maxTtlMs,
      shared: fleet ? new FleetControl(fleet.store.connection()) : undefined,
    },
  );
  front.proxy.observers.push(staging);
  scenario.attach({ listener: front.listener, proxies: front.proxies, staging });
  staging.scenarioSwapped((scenario.engine?.definition as Scenario | undefined)?.guardrails);
  await staging.start();
  parts.add(() => staging.close());
  return staging;
}
