import { readdirSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { ConfigError } from '../errors.js';
import { presetNames } from '../policies/presets.js';
import { loadScenario } from '../scenario/load.js';
import type { BenchSettings } from '../scenario/scenario.js';
import type { RunRequest } from '../sim/run-scenario.js';
import { compareText } from './baselines.js';
import { seedsOf } from './gates.js';
import { missingInputs } from './inputs.js';

/** What the bench runs of one scenario file. */
export interface ScenarioPlan {
  /** The file, relative to the working folder with "/" separators: its key in the baselines file. */
  readonly file: string;
  readonly name: string;
  /** The scenario's seed: baselines and expectations count their seeds from it. */
  readonly firstSeed: number;
  readonly settings: BenchSettings;
}

/** Why the bench skips a fill scenario. */
const FILL_SKIP_REASON = 'a fill run (placement only): no baselines';

/** A scenario the bench cannot run here, and why (its data files are absent, or it is a fill run). */
export interface SkippedScenario {
  readonly file: string;
  readonly reason: string;
}

/** The scenario files named: files as given, folders as their *.yaml files (not recursive), each once, sorted. */
export function scenarioFiles(paths: readonly string[]): string[] {
  const files = new Set<string>();
  for (const path of paths) {
    let isFolder: boolean;
    try {
      isFolder = statSync(path).isDirectory();
    } catch {
      throw new ConfigError('--scenarios', `${path}: no such file or folder`);
    }
    if (!isFolder) files.add(keyOf(path));
    else for (const name of readdirSync(path)) if (/\.ya?ml$/.test(name)) files.add(keyOf(join(path, name)));
  }
  return [...files].sort(compareText);
}

/** A path as baselines name it: relative to the working folder, "/" separators. */
function keyOf(path: string): string {
  return relative(process.cwd(), resolve(path)).split(sep).join('/');
}

/**
 * Loads every scenario (with the `--set` overrides) for its presets, seeds and expectations; a
 * scenario whose data files are absent, or that is a fill run, is skipped with the reason, any other
 * problem is its error.
 */
export async function planScenarios(files: readonly string[], sets: readonly string[]): Promise<{ plans: ScenarioPlan[]; skipped: SkippedScenario[] }> {
  const plans: ScenarioPlan[] = [];
  const skipped: SkippedScenario[] = [];
  for (const file of files) {
    const missing = missingInputs(file);
    if (missing.length > 0) {
      skipped.push({ file, reason: `${missing.map((path) => relative(process.cwd(), path)).join(', ')} absent` });
      continue;
    }
    const scenario = await loadScenario(file, { sets, knownPolicies: presetNames() });
    if (scenario.fill !== undefined) {
      // A fill run has no timed summary to hold: nothing of it is a baseline.
      skipped.push({ file, reason: FILL_SKIP_REASON });
      continue;
    }
    plans.push({ file, name: scenario.name, firstSeed: scenario.seed, settings: scenario.bench! });
  }
  return { plans, skipped };
}

/** The runs a plan needs for its baselines: every preset it compares on its baseline seeds. */
export function baselineRunsOf(plan: ScenarioPlan): { policy: string; seed: number }[] {
  const seeds = seedsOf(plan.firstSeed, plan.settings.baselineSeeds);
  return plan.settings.compare.flatMap((policy) => seeds.map((seed) => ({ policy, seed })));
}

/** Every run the plans need (baselines and expectations), each once, in a fixed order. */
export function runRequests(plans: readonly ScenarioPlan[], sets: readonly string[]): RunRequest[] {
  const requests = new Map<string, RunRequest>();
  const add = (file: string, policy: string, seed: number): void => {
    const key = JSON.stringify([file, policy, seed]);
    if (!requests.has(key)) requests.set(key, { file, policy, seed, sets });
  };
  for (const plan of plans) {
    for (const { policy, seed } of baselineRunsOf(plan)) add(plan.file, policy, seed);
    for (const expectation of plan.settings.expect) {
      for (const seed of seedsOf(plan.firstSeed, expectation.seeds)) {
        add(plan.file, expectation.policy, seed);
        if (expectation.baseline !== undefined) add(plan.file, expectation.baseline, seed);
      }
    }
  }
  return [...requests.values()].sort((a, b) => compareText(a.file, b.file) || compareText(a.policy, b.policy) || a.seed - b.seed);
}
