/** Random small scenarios for property tests: scenario documents as users write them, loaded through the real loader. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { presetNames } from '../../src/policies/presets.js';
import { loadScenario } from '../../src/scenario/load.js';
import type { Scenario } from '../../src/scenario/scenario.js';

/** A scenario document (the YAML format, as a plain object). */
export type ScenarioDoc = Record<string, unknown> & { workload: { jobs: Record<string, unknown>[] } };

/** A node group: GPU or CPU-only nodes of one shape. */
export const nodeGroupArb = fc
  .record({
    count: fc.integer({ min: 1, max: 4 }),
    gpus: fc.constantFrom(0, 2, 4, 8),
    cpuCores: fc.constantFrom(16, 32, 64, 96),
    memGiB: fc.constantFrom(128, 256, 512),
    nodesPerRack: fc.integer({ min: 1, max: 4 }),
  })
  .map((group) => (group.gpus > 0 ? { ...group, gpuType: 'A100' } : group));

const submitArb = fc.integer({ min: 0, max: 20_000 });
const checkpointArb = fc.option(
  fc.record({
    interval: fc.oneof(fc.constant('auto'), fc.integer({ min: 300, max: 7200 })),
    save: fc.integer({ min: 0, max: 120 }),
    load: fc.integer({ min: 0, max: 300 }),
    flash: fc.boolean(),
  }),
  { nil: undefined },
);

/** Drops keys whose value is undefined (the scenario format is strict about keys, not about absence). */
function defined<T extends Record<string, unknown>>(doc: T): T {
  return Object.fromEntries(Object.entries(doc).filter(([, v]) => v !== undefined)) as T;
}

/** A batch job replaying a duration, on whole GPUs, a GPU share or CPU only. */
const batchArb = fc
  .record({
    submit: submitArb,
    replicas: fc.integer({ min: 1, max: 3 }),
    gpus: fc.constantFrom(0, 1, 2, 4, 8),
    half: fc.boolean(),
    cpuCores: fc.integer({ min: 1, max: 16 }),
    memGiB: fc.integer({ min: 1, max: 64 }),
    duration: fc.integer({ min: 60, max: 20_000 }),
  })
  .map(({ half, ...job }) => ({ kind: 'batch', ...job, ...(half && job.gpus === 1 ? { gpuMilli: 500 } : {}) }));

/** A synchronous all-reduce job, rigid or elastic, with or without a chief, checkpoints, start-up and a pod short of memory. */
const allreduceArb = fc
  .record({
    submit: submitArb,
    replicas: fc.integer({ min: 1, max: 4 }),
    gpus: fc.constantFrom(1, 2, 4, 8),
    cpuCores: fc.integer({ min: 1, max: 16 }),
    memGiB: fc.integer({ min: 1, max: 64 }),
    steps: fc.integer({ min: 50, max: 5000 }),
    stepTime: fc.double({ min: 0.2, max: 5, noNaN: true }),
    commFraction: fc.double({ min: 0, max: 0.5, noNaN: true }),
    elastic: fc.boolean(),
    chief: fc.boolean(),
    checkpoint: checkpointArb,
    startup: fc.integer({ min: 0, max: 120 }),
    oom: fc.boolean(),
  })
  .map(({ elastic, chief, oom, ...job }) =>
    defined({
      kind: 'allreduce',
      ...job,
      elastic: elastic ? { min: 1, max: job.replicas * 2, unit: 1 } : undefined,
      chief: chief ? { replicas: 1, gpus: 0, cpuCores: 2, memGiB: 8 } : undefined,
      memUseGiB: oom ? job.memGiB + 8 : undefined,
    }),
  );

/** An asynchronous parameter-server job, rigid or elastic in units of two workers. */
const psArb = fc
  .record({
    submit: submitArb,
    replicas: fc.constantFrom(2, 4),
    gpus: fc.constantFrom(0, 1),
    cpuCores: fc.integer({ min: 1, max: 8 }),
    memGiB: fc.integer({ min: 1, max: 32 }),
    duration: fc.integer({ min: 60, max: 20_000 }),
    psReplicas: fc.integer({ min: 1, max: 3 }),
    elastic: fc.boolean(),
    checkpoint: checkpointArb,
  })
  .map(({ psReplicas, elastic, ...job }) =>
    defined({
      kind: 'ps',
      ...job,
      ps: { replicas: psReplicas, gpus: 0, cpuCores: 4, memGiB: 16 },
      elastic: elastic ? { min: 2, max: 8, unit: 2 } : undefined,
    }),
  );

/** A job of any kind. */
export const jobArb = fc.oneof(batchArb, allreduceArb, psArb);

/** Rate faults from a shipped catalog at 30-1000 times its rates, with a 5-30 min hang timeout. */
export const faultsArb = fc.record({
  catalog: fc.constantFrom('ant-2023', 'llama3-2024'),
  scale: fc.integer({ min: 30, max: 1000 }),
  hangTimeout: fc.integer({ min: 300, max: 1800 }),
});

/**
 * Any scenario: 1-2 node groups, 1-10 jobs of every kind, any preset, with or without heavy faults.
 * With faults, or a pod short of memory (relaunched as it was, it is OOM-killed again and again
 * under most recovery stacks: a crash loop, as in a real cluster), the run gets a 5-day horizon;
 * without either, it runs until every job has ended.
 */
export const scenarioDocArb: fc.Arbitrary<ScenarioDoc> = fc
  .record({
    seed: fc.integer({ min: 0, max: 10_000 }),
    policy: fc.constantFrom(...presetNames()),
    nodes: fc.array(nodeGroupArb, { minLength: 1, maxLength: 2 }),
    jobs: fc.array(jobArb, { minLength: 1, maxLength: 10 }),
    faults: fc.option(faultsArb, { nil: undefined }),
  })
  .map(({ seed, policy, nodes, jobs, faults }) =>
    defined({
      seed,
      policy,
      cluster: { nodes: nodes.map((group, i) => ({ group: `g${i}`, ...group })) },
      workload: { jobs: jobs.map((job, i) => ({ id: `j${i}`, user: `u${i % 3}`, ...job })) },
      faults,
      sim: faults || jobs.some((job) => 'memUseGiB' in job) ? { horizon: '5d' } : undefined,
    }),
  );

/** A folder for scenario files, removed by `remove`. */
export class ScenarioFiles {
  private readonly dir = mkdtempSync(join(tmpdir(), 'dlsim-property-'));
  private written = 0;

  /** Writes the document (JSON is YAML) and loads it as the CLI would. */
  async load(doc: ScenarioDoc): Promise<Scenario> {
    const file = join(this.dir, `s${this.written++}.yaml`);
    writeFileSync(file, JSON.stringify(doc));
    try {
      return await loadScenario(file, { knownPolicies: presetNames() });
    } finally {
      rmSync(file, { force: true });
    }
  }

  /** Removes the folder. */
  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
