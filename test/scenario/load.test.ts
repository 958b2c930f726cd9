import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { idsKnownUnique } from '../../src/model/job-ids.js';
import { loadScenario, type LoadScenarioOptions } from '../../src/scenario/load.js';

const dir = mkdtempSync(join(tmpdir(), 'dlsim-load-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let fileCount = 0;

/** Writes YAML text to a fresh temp file and returns its path. */
function writeScenario(text: string, name = `scenario-${++fileCount}.yaml`): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

const POLICIES = { knownPolicies: ['fifo', 'sjf'] } as const;

function load(text: string, options: Partial<LoadScenarioOptions> = {}) {
  return loadScenario(writeScenario(text), { ...POLICIES, ...options });
}

/** Loads the text and returns the ConfigError it must raise, plus the file it was written to. */
async function loadError(text: string, options: Partial<LoadScenarioOptions> = {}): Promise<{ error: ConfigError; file: string }> {
  const file = writeScenario(text);
  try {
    await loadScenario(file, { ...POLICIES, ...options });
  } catch (error) {
    if (error instanceof ConfigError) return { error, file };
    throw error;
  }
  throw new Error('expected a ConfigError');
}

const CLUSTER = `cluster:
  nodes:
    - group: a100
      count: 2
      gpus: 8
      gpuType: A100
      cpuCores: 64
      memGiB: 512
`;

/** A valid scenario: CLUSTER then a workload with the given job lines (indented as list items). */
function withJobs(jobs: string): string {
  return `${CLUSTER}workload:\n  jobs:\n${jobs}`;
}

describe('loadScenario: files and YAML syntax', () => {
  it('names a missing file', async () => {
    const file = join(dir, 'missing.yaml');
    await expect(loadScenario(file, POLICIES)).rejects.toThrow(new ConfigError(file, 'no such file'));
  });

  it('names a directory', async () => {
    const sub = join(dir, 'a-directory.yaml');
    mkdirSync(sub);
    await expect(loadScenario(sub, POLICIES)).rejects.toThrowError(`${sub}: is a directory, not a scenario file`);
  });

  it('reports a YAML syntax error with its line and only the first line of the message', async () => {
    const { error, file } = await loadError('seed: 1\npolicy: fifo\npolicy: sjf\n');
    expect(error.message).toBe(`${file}:3: Map keys must be unique`);
  });

  it('reports a bad indentation on the line where it happens', async () => {
    const { error, file } = await loadError(`${CLUSTER}workload:\n  jobs:\n    - duration: 1h\n   gpus: 2\n`);
    expect(error.where).toBe(`${file}:12`);
    expect(error.message).not.toContain('\n');
  });

  it('rejects a document that is not a mapping', async () => {
    const { error, file } = await loadError('- 1\n- 2\n');
    expect(error.message).toBe(`${file}: expected a mapping (the scenario) at the top level`);
  });
});

describe('loadScenario: validation messages', () => {
  it('names an unknown key with its exact line and the path of its mapping', async () => {
    const text = ['seed: 1', 'cluster:', '  nodes:', '    - group: a', '      count: 2', '      gpu: 8', '      cpuCores: 4', '      memGiB: 8', 'workload: {jobs: [{duration: 1h}]}', ''].join('\n');
    const { error, file } = await loadError(text);
    expect(error.message).toBe(`${file}:6: cluster.nodes[0]: unknown key "gpu"`);
  });

  it('names an unknown top-level key with its line', async () => {
    const { error, file } = await loadError(`${withJobs('    - duration: 1h\n')}fault: []\n`);
    expect(error.message).toBe(`${file}:12: unknown key "fault"`);
  });

  it('names unknown keys in nested mappings with defaults and custom messages', async () => {
    const elastic = await loadError(withJobs('    - kind: allreduce\n      steps: 10\n      elastic: {min: 1, max: 2, step: 1}\n'));
    expect(elastic.error.message).toBe(`${elastic.file}:13: workload.jobs[0].elastic: unknown key "step"`);
    const sim = await loadError(`sim:\n  horizon: 1d\n  until: 2d\n${withJobs('    - duration: 1h\n')}`);
    expect(sim.error.message).toBe(`${sim.file}:3: sim: unknown key "until"`);
    const two = await loadError(`${CLUSTER}workload:\n  synthetic: {jobs: 1, arrivalsPerHour: 1, gpus: {1: 1}, duration: {median: 1h, mean: 2h, p99: 3h}}\n`);
    expect(two.error.message).toBe(`${two.file}:10: workload.synthetic.duration: unknown keys "mean", "p99"`);
  });

  it('reports a bad value at the line of its key', async () => {
    const text = CLUSTER.replace('gpus: 8', 'gpus: -1') + 'workload:\n  jobs:\n    - duration: 1h\n';
    const { error, file } = await loadError(text);
    expect(error.message).toBe(`${file}:5: cluster.nodes[0].gpus: expected a non-negative integer up to 128`);
  });

  it('says "expected a positive integer" for a count of 0 or 1.5', async () => {
    for (const count of ['0', '1.5', 'two']) {
      const { error, file } = await loadError(withJobs(`    - duration: 1h\n      replicas: ${count}\n`));
      expect(error.message).toBe(`${file}:12: workload.jobs[0].replicas: expected a positive integer up to 100000`);
    }
  });

  it('names a missing required key without a line', async () => {
    const { error, file } = await loadError('workload:\n  jobs: [{duration: 1h}]\n');
    expect(error.message).toBe(`${file}: cluster: required`);
  });

  it('explains a malformed duration', async () => {
    const { error, file } = await loadError(withJobs('    - duration: 1h\n      submit: 5x\n'));
    expect(error.message).toBe(`${file}:12: workload.jobs[0].submit: expected a duration like 90s, 15m, 2h or 1d, up to 100 years`);
  });

  it('lists the allowed kinds', async () => {
    const { error, file } = await loadError(withJobs('    - kind: mpi\n      duration: 1h\n'));
    expect(error.message).toBe(`${file}:11: workload.jobs[0].kind: expected one of batch, allreduce, ps`);
  });

  it('names the wrong container type', async () => {
    const { error, file } = await loadError(`${CLUSTER}workload:\n  jobs: {duration: 1h}\n`);
    expect(error.message).toBe(`${file}:10: workload.jobs: expected a list of jobs`);
  });

  it('puts elastic bound errors on the offending field', async () => {
    const lines = '    - kind: allreduce\n      replicas: 2\n      steps: 100\n      elastic:\n        min: 4\n        max: 8\n';
    const { error, file } = await loadError(withJobs(lines));
    expect(error.message).toBe(`${file}:15: workload.jobs[0].elastic.min: min (4) exceeds replicas (2)`);
    const unit = await loadError(withJobs('    - kind: allreduce\n      replicas: 4\n      steps: 100\n      elastic: {min: 2, max: 8, unit: 4}\n'));
    expect(unit.error.message).toBe(`${unit.file}:14: workload.jobs[0].elastic.unit: unit (4) must divide min (2) and max (8)`);
    const max = await loadError(withJobs('    - kind: ps\n      replicas: 4\n      steps: 100\n      ps: {}\n      elastic: {min: 1, max: 2}\n'));
    expect(max.error.message).toBe(`${max.file}:15: workload.jobs[0].elastic.max: max (2) is below replicas (4)`);
  });

  it('allows a GPU share only for single-GPU replicas', async () => {
    const { error, file } = await loadError(withJobs('    - duration: 1h\n      gpus: 2\n      gpuMilli: 500\n'));
    expect(error.message).toBe(`${file}:13: workload.jobs[0].gpuMilli: gpuMilli below 1000 needs gpus: 1 (a share of one GPU)`);
    const role = await loadError(withJobs('    - kind: ps\n      steps: 10\n      ps:\n        gpuMilli: 250\n'));
    expect(role.error.message).toBe(`${role.file}:14: workload.jobs[0].ps.gpuMilli: gpuMilli below 1000 needs gpus: 1 (a share of one GPU)`);
    await expect((load(withJobs('    - duration: 1h\n      gpus: 1\n      gpuMilli: 500\n')))).resolves.toBeDefined();
  });

  it('checks gpuType against gpus', async () => {
    const missing = await loadError('cluster:\n  nodes:\n    - gpus: 4\n      cpuCores: 8\n      memGiB: 8\nworkload: {jobs: [{duration: 1h}]}\n');
    expect(missing.error.message).toBe(`${missing.file}:3: cluster.nodes[0]: gpuType is required when gpus > 0`);
    const extra = await loadError('cluster:\n  nodes:\n    - cpuCores: 8\n      memGiB: 8\n      gpuType: A100\nworkload: {jobs: [{duration: 1h}]}\n');
    expect(extra.error.message).toBe(`${extra.file}:5: cluster.nodes[0].gpuType: gpuType must be absent when gpus is 0`);
    await expect((load('cluster:\n  nodes:\n    - {cpuCores: 8, memGiB: 8, gpuType: null}\nworkload: {jobs: [{duration: 1h}]}\n'))).resolves.toBeDefined();
  });

  it('requires exactly one of duration and steps', async () => {
    const both = await loadError(withJobs('    - kind: allreduce\n      duration: 1h\n      steps: 10\n'));
    expect(both.error.message).toBe(`${both.file}:13: workload.jobs[0].steps: give one of duration, steps and data`);
    const neither = await loadError(withJobs('    - kind: allreduce\n'));
    expect(neither.error.message).toBe(`${neither.file}:11: workload.jobs[0]: a allreduce job needs a duration or steps`);
    const batch = await loadError(withJobs('    - steps: 10\n'));
    expect(batch.error.message).toBe(`${batch.file}:11: workload.jobs[0].steps: batch jobs take a duration, not steps`);
    const batchNone = await loadError(withJobs('    - gpus: 1\n'));
    expect(batchNone.error.message).toBe(`${batchNone.file}:11: workload.jobs[0]: a batch job needs a duration`);
  });

  it('requires a ps role for ps jobs and rejects kind-specific keys on other kinds', async () => {
    const noPs = await loadError(withJobs('    - kind: ps\n      steps: 10\n'));
    expect(noPs.error.message).toBe(`${noPs.file}:11: workload.jobs[0]: a ps job needs a ps role (ps: {replicas: ...})`);
    const psOnBatch = await loadError(withJobs('    - duration: 1h\n      ps: {replicas: 1}\n'));
    expect(psOnBatch.error.message).toBe(`${psOnBatch.file}:12: workload.jobs[0].ps: ps is only for kind ps`);
    const chief = await loadError(withJobs('    - duration: 1h\n      chief: {}\n'));
    expect(chief.error.message).toBe(`${chief.file}:12: workload.jobs[0].chief: chief is only for kind allreduce or ps`);
    const stepTime = await loadError(withJobs('    - kind: ps\n      steps: 1\n      ps: {}\n      stepTime: 1s\n'));
    expect(stepTime.error.message).toBe(`${stepTime.file}:14: workload.jobs[0].stepTime: stepTime is only for kind allreduce`);
  });

  it('rejects GPU types no node has', async () => {
    const { error, file } = await loadError(withJobs('    - duration: 1h\n      gpus: 1\n      gpuTypes: [V100, H100]\n'));
    expect(error.message).toBe(`${file}:13: workload.jobs[0].gpuTypes: no node has GPU type V100 or H100`);
    await expect((load(withJobs('    - duration: 1h\n      gpuTypes: [V100, A100]\n')))).resolves.toBeDefined();
    const synthetic = await loadError(`${CLUSTER}workload:\n  synthetic:\n    jobs: 3\n    arrivalsPerHour: 1\n    duration: {median: 1h}\n    gpus: {1: 1}\n    gpuTypes: [T4]\n`);
    expect(synthetic.error.message).toBe(`${synthetic.file}:15: workload.synthetic.gpuTypes: no node has GPU type T4`);
  });

  it('requires synthetic GPU counts above a node to be whole nodes', async () => {
    const synthetic = (gpus: string, extra = '') =>
      `${CLUSTER}workload:\n  synthetic:\n    jobs: 3\n    arrivalsPerHour: 1\n    duration: {median: 1h}\n    gpus:\n      ${gpus}\n${extra}`;
    const { error, file } = await loadError(synthetic('12: 1'));
    expect(error.message).toBe(`${file}:15: workload.synthetic.gpus.12: a 12-GPU job spans whole nodes: expected a multiple of gpusPerNode (8)`);
    const perNode = await loadError(synthetic('6: 1', '    gpusPerNode: 4\n'));
    expect(perNode.error.message).toBe(`${perNode.file}:15: workload.synthetic.gpus.6: a 6-GPU job spans whole nodes: expected a multiple of gpusPerNode (4)`);
    const key = await loadError(synthetic('two: 1'));
    expect(key.error.message).toBe(`${key.file}:15: workload.synthetic.gpus.two: expected a GPU count (a non-negative integer) as key`);
    expect((await load(synthetic('16: 1'))).jobs[0]!.roles[0]).toMatchObject({ replicas: 2, demand: { gpus: 8 } });
  });

  it('requires exactly one arrival rate for synthetic workloads', async () => {
    const base = `${CLUSTER}workload:\n  synthetic:\n    jobs: 3\n    duration: {median: 1h}\n    gpus: {1: 1}\n`;
    const neither = await loadError(base);
    expect(neither.error.message).toBe(`${neither.file}:10: workload.synthetic: needs arrivalsPerHour or meanInterarrival`);
    const both = await loadError(`${base}    arrivalsPerHour: 2\n    meanInterarrival: 30m\n`);
    expect(both.error.message).toBe(`${both.file}:15: workload.synthetic.meanInterarrival: give either arrivalsPerHour or meanInterarrival, not both`);
  });

  it('requires at least one job', async () => {
    const { error, file } = await loadError(`${CLUSTER}workload: {}\n`);
    expect(error.message).toBe(`${file}:9: workload: needs jobs, elasticJobs, synthetic and/or trace (at least one job)`);
  });

  it('rejects duplicate job ids at the second one', async () => {
    const { error, file } = await loadError(withJobs('    - id: a\n      duration: 1h\n    - id: b\n      duration: 1h\n    - id: a\n      duration: 1h\n'));
    expect(error.message).toBe(`${file}:15: workload.jobs[2].id: duplicate job id "a" (first used at workload.jobs[0].id)`);
    const implicit = await loadError(withJobs('    - id: job-2\n      duration: 1h\n    - duration: 1h\n'));
    expect(implicit.error.message).toBe(`${implicit.file}:13: workload.jobs[1]: duplicate job id "job-2" (first used at workload.jobs[0].id)`);
    const synthetic = await loadError(`${withJobs('    - id: syn-00001\n      duration: 1h\n')}  synthetic: {jobs: 2, arrivalsPerHour: 1, duration: {median: 1h}, gpus: {1: 1}}\n`);
    expect(synthetic.error.message).toBe(`${synthetic.file}:13: workload.synthetic: duplicate job id "syn-00001" (first used at workload.jobs[0].id)`);
  });

  it('records the job list it checked as having unique ids (a simulation does not look again)', async () => {
    const scenario = await load(withJobs('    - id: a\n      duration: 1h\n    - id: b\n      duration: 1h\n'));
    expect(scenario.jobs.map((job) => job.id)).toEqual(['a', 'b']);
    expect(idsKnownUnique(scenario.jobs)).toBe(true);
  });
});

describe('loadScenario: policy, seed and --set', () => {
  const text = `policy: tiresias\n${withJobs('    - duration: 1h\n')}`;

  it('rejects an unknown policy from the YAML at its line', async () => {
    const { error, file } = await loadError(text);
    expect(error.message).toBe(`${file}:1: policy: unknown policy "tiresias"; known policies: fifo, sjf`);
  });

  it('rejects an unknown policy from the option as --policy', async () => {
    const { error } = await loadError(withJobs('    - duration: 1h\n'), { policy: 'drf' });
    expect(error.message).toBe('--policy: unknown policy "drf"; known policies: fifo, sjf');
  });

  it('lets the option override the YAML policy and seed', async () => {
    const scenario = (await load(`seed: 4\n${text}`, { policy: 'sjf', seed: 9 }));
    expect(scenario.policy).toBe('sjf');
    expect(scenario.seed).toBe(9);
    expect((await load(`seed: 4\npolicy: sjf\n${withJobs('    - duration: 1h\n')}`)).seed).toBe(4);
  });

  it('rejects a bad --seed', async () => {
    expect((await loadError(withJobs('    - duration: 1h\n'), { seed: -1 })).error.message).toBe('--seed: expected a non-negative integer, got -1');
  });

  it('applies --set assignments in order before validation', async () => {
    const scenario = (await load(text, {
      sets: ['policy=fifo', 'cluster.nodes[0].count=3', 'cluster.nodes.0.count=5', 'workload.jobs[0].gpus=4', 'sim.horizon=2h'],
    }));
    expect(scenario.policy).toBe('fifo');
    expect(scenario.cluster.nodes).toHaveLength(5);
    expect(scenario.jobs[0]!.roles[0]!.demand.gpus).toBe(4);
    expect(scenario.horizonS).toBe(7200);
  });

  it('blames the --set that wrote a bad value', async () => {
    const { error } = await loadError(withJobs('    - duration: 1h\n'), { sets: ['cluster.nodes[0].count=0'] });
    expect(error.message).toBe('--set cluster.nodes[0].count=0: cluster.nodes[0].count: expected a positive integer up to 100000');
    const policy = await loadError(withJobs('    - duration: 1h\n'), { sets: ['policy=nope'] });
    expect(policy.error.message).toBe('--set policy=nope: policy: unknown policy "nope"; known policies: fifo, sjf');
    const key = await loadError(withJobs('    - duration: 1h\n'), { sets: ['cluster.nodes[0].gpu=1'] });
    expect(key.error.message).toBe('--set cluster.nodes[0].gpu=1: cluster.nodes[0]: unknown key "gpu"');
  });

  it('reports a --set error that walks into a scalar', async () => {
    expect((await loadError(text, { sets: ['policy.name=x'] })).error.message).toBe(
      '--set policy.name=x: cannot set inside policy: it is the string "tiresias"',
    );
  });
});

describe('loadScenario: building the scenario', () => {
  it('fills the defaults and names the scenario after its file', async () => {
    const file = writeScenario(`cluster:\n  nodes:\n    - {cpuCores: 2, memGiB: 1.5}\nworkload:\n  jobs:\n    - duration: 90s\n`, 'my-cluster.yaml');
    const scenario = await loadScenario(file, POLICIES);
    expect(scenario).toMatchObject({ name: 'my-cluster', file, seed: 1, policy: 'fifo', horizonS: Infinity });
    expect(scenario.cluster.nodes).toEqual([
      { name: 'group0-0000', group: 'group0', gpuType: null, gpus: 0, cpuMilli: 2000, memMiB: 1536, rack: 'group0-r0' },
    ]);
    expect(scenario.jobs).toEqual([
      {
        id: 'job-1',
        kind: 'batch',
        submitS: 0,
        user: '',
        gpuTypes: [],
        roles: [{ role: 'worker', replicas: 1, demand: { gpus: 0, gpuMilli: 1000, cpuMilli: 1000, memMiB: 4096 } }],
        elastic: null,
        totalSteps: 90,
        speed: { kind: 'fixed' },
        source: `${file}: workload.jobs[0]`,
      },
    ]);
  });

  it('reads memory use, start-up and the OOM delay', async () => {
    const scenario = await load(
      `sim: {oomAfter: 5m}\n${withJobs('    - {kind: ps, steps: 100, memGiB: 8, memUseGiB: 9.5, startup: 2m, ps: {memGiB: 16, memUseGiB: 20}}\n')}`,
    );
    expect(scenario.params.oomAfterS).toBe(300);
    const job = scenario.jobs[0]!;
    expect(job.startupS).toBe(120);
    expect(job.roles.map((r) => [r.role, r.demand.memMiB, r.memUseMiB])).toEqual([
      ['worker', 8192, 9728],
      ['ps', 16_384, 20_480],
    ]);
  });

  it('expands node groups in order with zero-padded names and racks', async () => {
    const scenario = (await load(
      'name: racks\nsim: {horizon: 30d}\ncluster:\n  nodes:\n    - {group: gpu, count: 5, gpus: 4, gpuType: V100, cpuCores: 32.5, memGiB: 256, nodesPerRack: 2}\n    - {count: 1, cpuCores: 8, memGiB: 16}\nworkload: {jobs: [{duration: 1h}]}\n',
    ));
    expect(scenario.name).toBe('racks');
    expect(scenario.horizonS).toBe(30 * 86400);
    expect(scenario.cluster.nodes.map((node) => `${node.name}@${node.rack}`)).toEqual([
      'gpu-0000@gpu-r0',
      'gpu-0001@gpu-r0',
      'gpu-0002@gpu-r1',
      'gpu-0003@gpu-r1',
      'gpu-0004@gpu-r2',
      'group1-0000@group1-r0',
    ]);
    expect(scenario.cluster.nodes[0]).toMatchObject({ gpuType: 'V100', gpus: 4, cpuMilli: 32500, memMiB: 262144 });
  });

  it('builds a batch job: fixed speed, totalSteps = duration in seconds', async () => {
    const [job] = (await load(withJobs('    - {id: b, submit: 15m, user: u, replicas: 2, gpus: 8, cpuCores: 8, memGiB: 32, duration: 2h, gpuTypes: [A100]}\n'))).jobs;
    expect(job).toMatchObject({
      id: 'b',
      kind: 'batch',
      submitS: 900,
      user: 'u',
      gpuTypes: ['A100'],
      totalSteps: 7200,
      speed: { kind: 'fixed' },
      elastic: null,
      roles: [{ role: 'worker', replicas: 2, demand: { gpus: 8, gpuMilli: 1000, cpuMilli: 8000, memMiB: 32768 } }],
    });
  });

  it('builds an allreduce job from steps or from duration / stepTime', async () => {
    const jobs = (await load(
      withJobs(
        '    - {id: s, kind: allreduce, replicas: 4, gpus: 8, steps: 5000, stepTime: 2s, commFraction: 0.25, elastic: {min: 2, max: 8, unit: 2}}\n' +
          '    - {id: d, kind: allreduce, duration: 1h, chief: {replicas: 1, cpuCores: 2, memGiB: 8}}\n',
      ),
    )).jobs;
    expect(jobs[0]).toMatchObject({
      id: 's',
      totalSteps: 5000,
      speed: { kind: 'allreduce', computeS: 1.5, commS: 0.5 },
      elastic: { minReplicas: 2, maxReplicas: 8, unit: 2 },
    });
    expect(jobs[1]!.totalSteps).toBe(3600);
    expect(jobs[1]!.speed).toEqual({ kind: 'allreduce', computeS: 0.9, commS: expect.closeTo(0.1, 12) });
    expect(jobs[1]!.roles.map((role) => role.role)).toEqual(['worker', 'chief']);
    expect(jobs[1]!.roles[1]!.demand).toEqual({ gpus: 0, gpuMilli: 1000, cpuMilli: 2000, memMiB: 8192 });
  });

  it('builds a ps job: roles worker, ps, chief; totalSteps from the Optimus speed at the requested size', async () => {
    const jobs = (await load(
      withJobs(
        '    - id: d\n      kind: ps\n      replicas: 4\n      gpus: 1\n      duration: 1000s\n      speed: {t0: 0.2, t1: 0.04, t2: 0.01, t3: 0.02}\n' +
          '      ps: {replicas: 2, cpuCores: 4, memGiB: 16}\n      chief: {replicas: 1, cpuCores: 1, memGiB: 2}\n' +
          '    - {id: s, kind: ps, steps: 777, ps: {replicas: 3}}\n' +
          '    - {id: t, kind: ps, replicas: 2, duration: 100s, ps: {}}\n',
      ),
    )).jobs;
    const [byDuration, bySteps, defaults] = jobs;
    // w = 4, p = 2: 4 / (0.2 + 0.04*4/2 + 0.01*4 + 0.02*2) = 4 / 0.36 steps/s.
    expect(byDuration!.totalSteps).toBeCloseTo((1000 * 4) / 0.36, 9);
    expect(byDuration!.speed).toEqual({ kind: 'ps-async', t0: 0.2, t1: 0.04, t2: 0.01, t3: 0.02 });
    expect(byDuration!.roles.map((role) => [role.role, role.replicas])).toEqual([['worker', 4], ['ps', 2], ['chief', 1]]);
    expect(byDuration!.roles[1]!.demand).toEqual({ gpus: 0, gpuMilli: 1000, cpuMilli: 4000, memMiB: 16384 });
    expect(bySteps!.totalSteps).toBe(777);
    expect(bySteps!.roles[1]!.replicas).toBe(3);
    // Defaults t0..t3 = 0.1, 0.02, 0.002, 0.005 with w = 2, p = 1: 2 / (0.1 + 0.04 + 0.004 + 0.005).
    expect(defaults!.speed).toEqual({ kind: 'ps-async', t0: 0.1, t1: 0.02, t2: 0.002, t3: 0.005 });
    expect(defaults!.totalSteps).toBeCloseTo((100 * 2) / 0.149, 9);
  });

  it('sorts jobs by submit time, keeping workload order on ties, inline before synthetic', async () => {
    const jobs = (await load(
      `${withJobs('    - {id: late, submit: 2h, duration: 1h}\n    - {id: first, submit: 0, duration: 1h}\n    - {id: tie-a, submit: 1h, duration: 1h}\n    - {id: tie-b, submit: 1h, duration: 1h}\n')}` +
        '  synthetic: {jobs: 20, meanInterarrival: 10m, duration: {median: 1h}, gpus: {1: 1}}\n',
    )).jobs;
    const ids = jobs.map((job) => job.id);
    expect(ids[0]).toBe('first');
    expect(ids.indexOf('tie-b')).toBe(ids.indexOf('tie-a') + 1);
    expect(jobs.map((job) => job.submitS)).toEqual([...jobs.map((job) => job.submitS)].sort((a, b) => a - b));
    expect(ids.filter((id) => id.startsWith('syn-'))).toHaveLength(20);
    expect(jobs.find((job) => job.id === 'syn-00001')!.source).toMatch(/: workload\.synthetic$/);
  });

  it('gives synthetic jobs the seed of the scenario, overridable by the option', async () => {
    const text = `seed: 3\n${CLUSTER}workload:\n  synthetic: {jobs: 5, arrivalsPerHour: 6, duration: {median: 1h}, gpus: {1: 1, 8: 1}}\n`;
    const file = writeScenario(text);
    const submits = async (seed?: number) => (await loadScenario(file, { ...POLICIES, ...(seed === undefined ? {} : { seed }) })).jobs.map((job) => job.submitS);
    expect(await submits()).toEqual(await submits(3));
    expect(await submits()).not.toEqual(await submits(4));
  });
});
