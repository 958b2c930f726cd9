/** How a summary or a comparison was made: dlsim's version, the scenario file and its hash, the policies, the overrides and the seeds. */
import { createHash } from 'node:crypto';
import { dlsimVersion } from './version.js';
import { readFileSync } from 'node:fs';
import type { PolicyChoice, Scenario } from '../scenario/scenario.js';
import { stackOf } from '../sim/policy-host.js';

/** The policies a run used, one per kind, by registry id with the options the scenario gave (empty: the policy's defaults). */
export interface PolicyStackProvenance {
  readonly scheduling: PolicyChoice;
  readonly placement: PolicyChoice;
  readonly recovery: PolicyChoice;
  readonly autoscale: PolicyChoice;
  readonly data: PolicyChoice;
}

/** What a comparison and a run share in how they were made. */
interface CommonProvenance {
  /** dlsim's version (package.json). */
  readonly dlsimVersion: string;
  /** The scenario file as given on the command line. */
  readonly scenarioFile: string;
  /** SHA-256 of the scenario file's bytes, hex (the traces it names are not in it). */
  readonly scenarioSha256: string;
  /** Every `--set path=value`, in the order given. */
  readonly sets: readonly string[];
  readonly seeds: readonly number[];
}

/** How a run's summary was made. */
export interface RunProvenance extends CommonProvenance {
  /** The policies it ran: its preset's, each kind replaced where the scenario names another. */
  readonly policyStack: PolicyStackProvenance;
}

/** How a comparison was made. */
export interface ComparisonProvenance extends CommonProvenance {
  /** The policies each compared preset ran, by preset name. */
  readonly policyStacks: Readonly<Record<string, PolicyStackProvenance>>;
}

/** SHA-256 of bytes (or text, as UTF-8), hex. */
export function sha256(bytes: string | Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** SHA-256 of a file's bytes, hex. */
export function sha256OfFile(file: string): string {
  return sha256(readFileSync(file));
}

/** The effective policy stack of a loaded scenario (its `policy` preset with its `policies:` and `recovery:`). */
export function policyStackOf(scenario: Scenario): PolicyStackProvenance {
  const { scheduling, placement, recovery, autoscale, data } = stackOf(scenario);
  return { scheduling, placement, recovery, autoscale, data };
}

/** What a run was made from: the file it was loaded from, the overrides and its seed. */
export function runProvenance(file: string, scenario: Scenario, sets: readonly string[]): RunProvenance {
  return { dlsimVersion: dlsimVersion(), scenarioFile: file, scenarioSha256: sha256OfFile(file), policyStack: policyStackOf(scenario), sets: [...sets], seeds: [scenario.seed] };
}

/** What a comparison was made from: the scenario (loaded with any preset), its presets, overrides and seeds. */
export function comparisonProvenance(file: string, scenario: Scenario, policies: readonly string[], sets: readonly string[], seeds: readonly number[]): ComparisonProvenance {
  return {
    dlsimVersion: dlsimVersion(),
    scenarioFile: file,
    scenarioSha256: sha256OfFile(file),
    policyStacks: Object.fromEntries(policies.map((policy) => [policy, policyStackOf({ ...scenario, policy })])),
    sets: [...sets],
    seeds: [...seeds],
  };
}
