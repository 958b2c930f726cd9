import { performance } from 'node:perf_hooks';
import { presetNames } from '../policies/presets.js';
import { loadScenario } from '../scenario/load.js';
import type { Scenario } from '../scenario/scenario.js';
import { simulate } from '../sim/simulation.js';

/** What a simulation throughput run measured (the median of its repetitions). */
export interface SimThroughputResult {
  readonly scenario: string;
  readonly jobs: number;
  readonly events: number;
  readonly seconds: number;
  readonly eventsPerS: number;
}

/** Simulates a scenario `repetitions` times (after one warm-up) and reports the median wall time. */
export async function benchSimThroughput(file: string, sets: readonly string[] = [], repetitions = 3): Promise<SimThroughputResult> {
  const scenario = await loadScenario(file, { sets, knownPolicies: presetNames() });
  simulate(scenario);
  const times: number[] = [];
  let events = 0;
  for (let i = 0; i < repetitions; i++) {
    const startedMs = performance.now();
    events = simulate(scenario).summary.events;
    times.push((performance.now() - startedMs) / 1000);
  }
  times.sort((a, b) => a - b);
  const seconds = times[Math.floor(times.length / 2)]!;
  return { scenario: scenario.name, jobs: scenario.jobs.length, events, seconds: Math.round(seconds * 1000) / 1000, eventsPerS: Math.round(events / seconds) };
}

/** Events of one simulation of an already loaded scenario (what a ratio measured in one process times). */
export function simEvents(scenario: Scenario): number {
  return simulate(scenario).summary.events;
}
