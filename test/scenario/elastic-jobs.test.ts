import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { loadScenario } from '../../src/scenario/load.js';
import { simulate } from '../../src/sim/simulation.js';
import { COLD_START_CHIEF_DEMAND } from '../../src/workload/formats/elastic-job.js';

const FIXTURES = join(import.meta.dirname, '..', 'workload', 'formats', 'elastic-jobs');
const dir = mkdtempSync(join(tmpdir(), 'dlsim-elastic-jobs-'));
mkdirSync(join(dir, 'jobs'));
for (const name of ['ctr-autoscale', 'ctr-manual', 'torch-gpu']) copyFileSync(join(FIXTURES, `${name}.yaml`), join(dir, 'jobs', `${name}.yaml`));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CLUSTER = `cluster:
  nodes:
    - group: cpu
      count: 4
      cpuCores: 64
      memGiB: 256
    - group: gpu
      count: 2
      gpus: 8
      gpuType: A100
      cpuCores: 96
      memGiB: 1024
`;

/** An inline manifest of a small PS job (YAML lines indented for workload.elasticJobs[i].manifest). */
const INLINE_PS = `      manifest:
        apiVersion: elastic.iml.github.io/v1alpha1
        kind: ElasticJob
        metadata: {name: inline-ps}
        spec:
          distributionStrategy: ParameterServerStrategy
          optimizeMode: single-job
          resourceLimits: {cpu: "10", memory: 20Gi}
          replicaSpecs:
            ps:
              replicas: 1
              template:
                spec:
                  containers:
                    - name: main
                      image: img:1
                      resources: {limits: {cpu: "2", memory: 4Gi}}
            worker:
              replicas: 2
              template:
                spec:
                  containers:
                    - name: main
                      image: img:1
                      resources: {limits: {cpu: 1500m, memory: 4170Mi}}
`;

/** Writes a scenario with the cluster above and `workload` (YAML under `workload:`); returns its path and text. */
function scenario(name: string, workload: string): { file: string; text: string } {
  const file = join(dir, `${name}.yaml`);
  const text = `${CLUSTER}workload:\n${workload}`;
  writeFileSync(file, text);
  return { file, text };
}

/** The ConfigError message loading `file` gives. */
async function loadError(file: string): Promise<string> {
  const error = await loadScenario(file, { knownPolicies: ['fifo'] }).then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return (error as Error).message;
}

/** 1-based line of the first line of `text` that contains `needle`. */
function lineOf(text: string, needle: string): number {
  const index = text.split('\n').findIndex((line) => line.includes(needle));
  expect(index).toBeGreaterThanOrEqual(0);
  return index + 1;
}

describe('workload.elasticJobs', () => {
  it('reads manifest files (relative to the scenario) and inline manifests, with their work and hidden truth', async () => {
    const { file } = scenario(
      'mixed',
      `  elasticJobs:
    - manifest: jobs/ctr-autoscale.yaml
      submit: 10m
      user: alice
      dataset: criteo
      data: {samplesPerEpoch: 45000000, epochs: 1, batchSize: 512}
      model:
        speed: {t0: 0.03, t1: 0.004, t2: 0.0005, t3: 0.001}
        psTruth: {variableSizes: [4, 1, 1], psMemBaseGiB: 2, psMemGrowthMiBPerStep: 0.02, workerMemGiB: 3, workerCpuCores: 4, psCpuCores: 8}
    - manifest: jobs/torch-gpu.yaml
      steps: 5000
      model: {stepTime: 2s, commFraction: 0.25}
    -
${INLINE_PS}      steps: 100
`,
    );
    const loaded = await loadScenario(file, { knownPolicies: ['fifo'] });
    expect(loaded.jobs.map((job) => job.id)).toEqual(['torch-gpu', 'inline-ps', 'ctr-autoscale']);
    const auto = loaded.jobs.find((job) => job.id === 'ctr-autoscale')!;
    expect(auto).toMatchObject({
      kind: 'ps',
      submitS: 600,
      user: 'alice',
      dataset: 'criteo',
      totalSteps: Math.ceil(45_000_000 / 512),
      data: { samplesPerEpoch: 45_000_000, epochs: 1, batchSize: 512, minibatchesPerShard: 10 },
      speed: { kind: 'ps-async', t0: 0.03, t1: 0.004, t2: 0.0005, t3: 0.001 },
      psTruth: { variableSizes: [4, 1, 1], psMemBaseMiB: 2048, psMemGrowthMiBPerStep: 0.02, workerMemMiB: 3072, workerCpuMilli: 4000, psCpuMilli: 8000 },
      resourceLimits: { cpuMilli: 15_000, memMiB: 30_000 },
      elastic: { minReplicas: 0, maxReplicas: 60, unit: 1 },
      source: join(dir, 'jobs', 'ctr-autoscale.yaml'),
    });
    expect(auto.roles.find((role) => role.role === 'chief')!.demand).toEqual(COLD_START_CHIEF_DEMAND);
    const torch = loaded.jobs.find((job) => job.id === 'torch-gpu')!;
    expect(torch).toMatchObject({ kind: 'allreduce', submitS: 0, user: '', totalSteps: 5000, speed: { kind: 'allreduce', computeS: 1.5, commS: 0.5 }, optimizeMode: 'single-job' });
    expect(torch.dataset).toBeUndefined();
    expect(torch.psTruth).toBeUndefined();
    const inline = loaded.jobs.find((job) => job.id === 'inline-ps')!;
    expect(inline).toMatchObject({
      kind: 'ps',
      totalSteps: 100,
      speed: { kind: 'ps-async', t0: 0.1, t1: 0.02, t2: 0.002, t3: 0.005 },
      resourceLimits: { cpuMilli: 10_000, memMiB: 20_480 },
      optimizeMode: 'single-job',
      source: `${file}: workload.elasticJobs[2]`,
    });
    expect(inline.roles.map((role) => [role.role, role.replicas, role.demand.cpuMilli, role.demand.memMiB])).toEqual([
      ['worker', 2, 1500, 4170],
      ['ps', 1, 2000, 4096],
    ]);
  });

  it('a rigid ElasticJob runs to the end', async () => {
    const { file } = scenario('run', `  elasticJobs:\n    - manifest: jobs/ctr-manual.yaml\n      steps: 2000\n`);
    const result = simulate(await loadScenario(file, { knownPolicies: ['fifo'] }));
    expect(result.summary.jobs).toMatchObject({ submitted: 1, completed: 1 });
  });

  it("reports an unknown key of an inline manifest at its YAML path and the scenario's line", async () => {
    const { file, text } = scenario('inline-unknown', `  elasticJobs:\n    -\n${INLINE_PS.replace('image: img:1\n', 'image: img:1\n                      imagePolicy: Always\n')}      steps: 100\n`);
    expect(await loadError(file)).toBe(
      `${file}:${lineOf(text, 'imagePolicy')}: workload.elasticJobs[0].manifest.spec.replicaSpecs.ps.template.spec.containers[0]: unknown key "imagePolicy"`,
    );
  });

  it('reports a bad quantity of an inline manifest, naming it', async () => {
    const { file, text } = scenario('inline-quantity', `  elasticJobs:\n    -\n${INLINE_PS.replace('cpu: 1500m', 'cpu: 1.5 cores')}      steps: 100\n`);
    expect(await loadError(file)).toBe(
      `${file}:${lineOf(text, '1.5 cores')}: workload.elasticJobs[0].manifest.spec.replicaSpecs.worker.template.spec.containers[0].resources.limits.cpu: expected a CPU quantity like "2", "0.5" or "500m", got "1.5 cores"`,
    );
  });

  it("reports a manifest file's own problem at its own line", async () => {
    const manifest = join(dir, 'jobs', 'bad.yaml');
    const text = `apiVersion: elastic.iml.github.io/v1alpha1\nkind: ElasticJob\nmetadata: {name: bad}\nspec:\n  distributionStrategy: AllreduceStrategy\n  replicas: 3\n  replicaSpecs: {}\n`;
    writeFileSync(manifest, text);
    const { file } = scenario('file-unknown', `  elasticJobs:\n    - manifest: jobs/bad.yaml\n      steps: 10\n`);
    expect(await loadError(file)).toBe(`${manifest}:6: spec: unknown key "replicas"`);
  });

  it("reports a missing manifest file at the scenario's key", async () => {
    const { file, text } = scenario('file-missing', `  elasticJobs:\n    - manifest: jobs/none.yaml\n      steps: 10\n`);
    expect(await loadError(file)).toBe(`${file}:${lineOf(text, 'none.yaml')}: workload.elasticJobs[0].manifest: ${join(dir, 'jobs', 'none.yaml')}: no such file`);
  });

  it('needs steps or data, not both', async () => {
    const neither = scenario('neither', `  elasticJobs:\n    - manifest: jobs/ctr-manual.yaml\n`);
    expect(await loadError(neither.file)).toBe(`${neither.file}:${lineOf(neither.text, 'manifest:')}: workload.elasticJobs[0]: needs steps or data (the work to do)`);
    const both = scenario('both', `  elasticJobs:\n    - manifest: jobs/ctr-manual.yaml\n      steps: 10\n      data: {samplesPerEpoch: 100, epochs: 1, batchSize: 10}\n`);
    expect(await loadError(both.file)).toBe(`${both.file}:${lineOf(both.text, 'data:')}: workload.elasticJobs[0].data: give either steps or data, not both`);
    const huge = scenario('huge', `  elasticJobs:\n    - manifest: jobs/ctr-manual.yaml\n      data: {samplesPerEpoch: 1000000000000, epochs: 1000000, batchSize: 10}\n`);
    expect(await loadError(huge.file)).toBe(`${huge.file}:${lineOf(huge.text, 'data:')}: workload.elasticJobs[0].data: samplesPerEpoch x epochs is too large`);
  });

  it("takes a PS job's hidden truth whole, and each model key only for its kind of job", async () => {
    const partial = scenario('partial-truth', `  elasticJobs:\n    - manifest: jobs/ctr-manual.yaml\n      steps: 10\n      model:\n        psTruth: {variableSizes: [1, 2]}\n`);
    // A missing key has no line of its own: the scenario loader names the file and the path.
    expect(await loadError(partial.file)).toBe(`${partial.file}: workload.elasticJobs[0].model.psTruth.psMemBaseGiB: required`);
    const onAllreduce = scenario('truth-allreduce', `  elasticJobs:\n    - manifest: jobs/torch-gpu.yaml\n      steps: 10\n      model:\n        psTruth: {variableSizes: [1], psMemBaseGiB: 1, workerMemGiB: 1, workerCpuCores: 1, psCpuCores: 1}\n`);
    expect(await loadError(onAllreduce.file)).toMatch(/workload\.elasticJobs\[0\]\.model\.psTruth: psTruth is only for ParameterServerStrategy jobs/);
    const wrongKind = scenario('wrong-kind', `  elasticJobs:\n    - manifest: jobs/torch-gpu.yaml\n      steps: 10\n      model:\n        speed: {t0: 1}\n`);
    expect(await loadError(wrongKind.file)).toBe(
      `${wrongKind.file}:${lineOf(wrongKind.text, 'speed:')}: workload.elasticJobs[0].model.speed: speed is only for ParameterServerStrategy jobs (torch-gpu is AllreduceStrategy)`,
    );
    const stepTime = scenario('step-time', `  elasticJobs:\n    - manifest: jobs/ctr-manual.yaml\n      steps: 10\n      model: {stepTime: 1s}\n`);
    expect(await loadError(stepTime.file)).toMatch(/workload\.elasticJobs\[0\]\.model\.stepTime: stepTime is only for AllreduceStrategy jobs/);
    const unknown = scenario('model-unknown', `  elasticJobs:\n    - manifest: jobs/ctr-manual.yaml\n      steps: 10\n      model: {t0: 1}\n`);
    expect(await loadError(unknown.file)).toMatch(/workload\.elasticJobs\[0\]\.model: unknown key "t0"$/);
  });

  it('checks job ids against the other workloads', async () => {
    const { file, text } = scenario('duplicate', `  jobs:\n    - {id: ctr-manual, duration: 1h}\n  elasticJobs:\n    - manifest: jobs/ctr-manual.yaml\n      steps: 10\n`);
    expect(await loadError(file)).toBe(
      `${file}:${lineOf(text, 'manifest: jobs/ctr-manual')}: workload.elasticJobs[0].manifest: duplicate job id "ctr-manual" (first used at workload.jobs[0].id)`,
    );
  });

  it('counts as a workload on its own, and rejects a manifest that is neither a file name nor a mapping', async () => {
    const list = scenario('list', `  elasticJobs:\n    - manifest: [a]\n      steps: 10\n`);
    expect(await loadError(list.file)).toBe(
      `${list.file}:${lineOf(list.text, 'manifest:')}: workload.elasticJobs[0].manifest: expected an ElasticJob manifest: a file name or the manifest itself (a mapping)`,
    );
    const empty = scenario('empty', `  elasticJobs: []\n`);
    expect(await loadError(empty.file)).toBe(`${empty.file}:${lineOf(empty.text, 'workload:')}: workload: needs jobs, elasticJobs, synthetic and/or trace (at least one job)`);
  });

  it('takes --set overrides of an entry', async () => {
    const { file } = scenario('set', `  elasticJobs:\n    - manifest: jobs/ctr-manual.yaml\n      steps: 10\n`);
    const loaded = await loadScenario(file, { knownPolicies: ['fifo'], sets: ['workload.elasticJobs[0].submit=1h'] });
    expect(loaded.jobs[0]!.submitS).toBe(3600);
  });
});
