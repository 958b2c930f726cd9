import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ConfigError } from '../../../src/errors.js';
import { formatYamlPath } from '../../../src/io/yaml-errors.js';
import type { JobSpec, SpeedSpec } from '../../../src/model/job-spec.js';
import {
  COLD_START_CHIEF_DEMAND,
  COLD_START_PS_DEMAND,
  MAX_AUTO_SCALED_WORKERS,
  dataSteps,
  elasticJobKind,
  elasticJobSpec,
  readElasticJobFile,
  validateElasticJob,
  type ElasticJobManifest,
} from '../../../src/workload/formats/elastic-job.js';
import { folderWith } from '../../cli-run.js';

const FIXTURES = join(import.meta.dirname, 'elastic-jobs');
const PS_SPEED: SpeedSpec = { kind: 'ps-async', t0: 0.1, t1: 0.02, t2: 0.002, t3: 0.005 };

/** The job of a fixture manifest, submitted at 0 with 1000 steps. */
function fixtureJob(name: string, speed: SpeedSpec = PS_SPEED): JobSpec {
  return elasticJobSpec(readElasticJobFile(join(FIXTURES, `${name}.yaml`)), { submitS: 0, user: 'alice', totalSteps: 1000, speed, source: name });
}

/** A minimal valid manifest of the given strategy, as a plain object to change. */
function manifest(strategy = 'ParameterServerStrategy'): Record<string, any> {
  const role = (replicas: number) => ({
    replicas,
    template: { spec: { containers: [{ name: 'main', image: 'img:1', resources: { limits: { cpu: '2', memory: '4Gi' } } }] } },
  });
  return {
    apiVersion: 'elastic.iml.github.io/v1alpha1',
    kind: 'ElasticJob',
    metadata: { name: 'job-a' },
    spec: { distributionStrategy: strategy, replicaSpecs: strategy === 'ParameterServerStrategy' ? { ps: role(1), worker: role(2) } : { worker: role(2) } },
  };
}

/** The manifest validated (the test fails on a problem). */
function valid(raw: unknown): ElasticJobManifest {
  const result = validateElasticJob(raw);
  if (!result.ok) throw new Error(`${result.issue.path.join('.')}: ${result.issue.message}`);
  return result.manifest;
}

/** The first problem of a manifest, as "path: message" (an unknown key ends the path). */
function problem(raw: unknown): string {
  const result = validateElasticJob(raw);
  if (result.ok) throw new Error('expected a problem');
  const { path, message, unknownKey } = result.issue;
  return `${formatYamlPath(unknownKey === undefined ? path : [...path, unknownKey])}: ${message}`;
}

/** The ConfigError message reading a manifest file with `text` gives. */
function fileError(text: string): { file: string; message: string } {
  const dir = folderWith({ 'job.yaml': text });
  const file = join(dir, 'job.yaml');
  try {
    readElasticJobFile(file);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return { file, message: (error as Error).message };
  }
  throw new Error('expected a ConfigError');
}

describe("DLRover's example manifests", () => {
  it('an auto-scaled PS job starts at the cold start: 1 PS and a chief of 8 CPU x 8 GiB, no workers, elastic up to 60', () => {
    const job = fixtureJob('ctr-autoscale');
    expect(job.id).toBe('ctr-autoscale');
    expect(job.kind).toBe('ps');
    expect(job.roles).toEqual([
      { role: 'worker', replicas: 0, demand: COLD_START_CHIEF_DEMAND },
      { role: 'ps', replicas: 1, demand: COLD_START_PS_DEMAND },
      { role: 'chief', replicas: 1, demand: COLD_START_CHIEF_DEMAND },
    ]);
    expect(COLD_START_PS_DEMAND).toMatchObject({ cpuMilli: 8000, memMiB: 8192, gpus: 0 });
    expect(job.elastic).toEqual({ minReplicas: 0, maxReplicas: MAX_AUTO_SCALED_WORKERS, unit: 1 });
    expect(MAX_AUTO_SCALED_WORKERS).toBe(60);
    expect(job.resourceLimits).toEqual({ cpuMilli: 15_000, memMiB: 30_000 });
    expect(job.optimizeMode).toBeUndefined();
    expect(job).toMatchObject({ user: 'alice', submitS: 0, totalSteps: 1000, speed: PS_SPEED, gpuTypes: [], source: 'ctr-autoscale' });
  });

  it('a manual PS job takes each role from its limits, else its requests, and is rigid', () => {
    const job = fixtureJob('ctr-manual');
    expect(job.roles).toEqual([
      { role: 'worker', replicas: 3, demand: { gpus: 0, gpuMilli: 1000, cpuMilli: 500, memMiB: 4170 } },
      { role: 'ps', replicas: 2, demand: { gpus: 0, gpuMilli: 1000, cpuMilli: 2000, memMiB: 3072 } },
    ]);
    expect(job.elastic).toBeNull();
    expect(job.optimizeMode).toBe('manual');
    expect(job.resourceLimits).toBeUndefined();
  });

  it('a cluster-mode job keeps its optimize mode and budget; its brain service, namespace and labels are read and ignored', () => {
    const job = fixtureJob('iris-cluster');
    expect(job.optimizeMode).toBe('cluster');
    expect(job.resourceLimits).toEqual({ cpuMilli: 6000, memMiB: 8192 });
    expect(job.roles.map((r) => [r.role, r.replicas])).toEqual([
      ['worker', 0],
      ['ps', 1],
      ['chief', 1],
    ]);
  });

  it('an all-reduce job on GPUs: kind allreduce, GPUs from nvidia.com/gpu, no chief', () => {
    const speed: SpeedSpec = { kind: 'allreduce', computeS: 0.9, commS: 0.1 };
    const job = fixtureJob('torch-gpu', speed);
    expect(job.kind).toBe('allreduce');
    expect(job.roles).toEqual([{ role: 'worker', replicas: 4, demand: { gpus: 2, gpuMilli: 1000, cpuMilli: 8000, memMiB: 16_384 } }]);
    expect(job.elastic).toBeNull();
    expect(job.optimizeMode).toBe('single-job');
    expect(job.speed).toEqual(speed);
  });

  it('reads YAML 1.1-style True as autoScale true', () => {
    const raw = parse('autoScale: True\nother: False\n') as { autoScale: boolean; other: boolean };
    expect(raw).toEqual({ autoScale: true, other: false });
  });
});

describe('mapping a manifest onto a job', () => {
  it('kind from the strategy', () => {
    expect(elasticJobKind(valid(manifest()))).toBe('ps');
    expect(elasticJobKind(valid(manifest('AllreduceStrategy')))).toBe('allreduce');
  });

  it("sums a pod's containers, each from its limits else its requests, quantity by quantity", () => {
    const raw = manifest();
    raw.spec.replicaSpecs.worker.template.spec.containers = [
      { name: 'main', image: 'a', resources: { limits: { cpu: '1.5' }, requests: { cpu: '1', memory: '1Gi' } } },
      { name: 'side', image: 'b', resources: { requests: { cpu: '250m', memory: '512Mi', 'nvidia.com/gpu': '1' } } },
      { name: 'bare', image: 'c' },
    ];
    const job = elasticJobSpec(valid(raw), { submitS: 5, user: '', totalSteps: 1, speed: PS_SPEED, source: 's' });
    expect(job.roles[0]).toEqual({ role: 'worker', replicas: 2, demand: { gpus: 1, gpuMilli: 1000, cpuMilli: 1750, memMiB: 1536 } });
  });

  it("leaves a quantity no container gives at the cold start, and sizes a chief's missing quantities like its workers", () => {
    const raw = manifest();
    raw.spec.replicaSpecs.ps.template.spec.containers[0].resources = { limits: { cpu: '4' } };
    raw.spec.replicaSpecs.chief = { template: { spec: { containers: [{ name: 'main', image: 'a' }] } } };
    const job = elasticJobSpec(valid(raw), { submitS: 0, user: '', totalSteps: 1, speed: PS_SPEED, source: 's' });
    expect(job.roles.find((r) => r.role === 'ps')!.demand).toMatchObject({ cpuMilli: 4000, memMiB: COLD_START_PS_DEMAND.memMiB });
    expect(job.roles.find((r) => r.role === 'chief')).toEqual({ role: 'chief', replicas: 1, demand: { gpus: 0, gpuMilli: 1000, cpuMilli: 2000, memMiB: 4096 } });
  });

  it('replicas default to 1; an auto-scaled worker role of a PS job to 0 with a chief sized like its workers', () => {
    const raw = manifest();
    delete raw.spec.replicaSpecs.ps.replicas;
    delete raw.spec.replicaSpecs.worker.replicas;
    const rigid = elasticJobSpec(valid(raw), { submitS: 0, user: '', totalSteps: 1, speed: PS_SPEED, source: 's' });
    expect(rigid.roles.map((r) => [r.role, r.replicas])).toEqual([
      ['worker', 1],
      ['ps', 1],
    ]);
    raw.spec.replicaSpecs.worker.autoScale = true;
    const auto = elasticJobSpec(valid(raw), { submitS: 0, user: '', totalSteps: 1, speed: PS_SPEED, source: 's' });
    expect(auto.roles.map((r) => [r.role, r.replicas, r.demand.cpuMilli])).toEqual([
      ['worker', 0, 2000],
      ['ps', 1, 2000],
      ['chief', 1, 2000],
    ]);
    expect(auto.elastic).toEqual({ minReplicas: 0, maxReplicas: 60, unit: 1 });
  });

  it('an auto-scaled all-reduce worker role keeps at least one worker and gets no chief; more than 60 asked raise the bound', () => {
    const raw = manifest('AllreduceStrategy');
    raw.spec.replicaSpecs.worker.autoScale = true;
    raw.spec.replicaSpecs.worker.replicas = 80;
    const job = elasticJobSpec(valid(raw), { submitS: 0, user: '', totalSteps: 1, speed: { kind: 'allreduce', computeS: 1, commS: 0 }, source: 's' });
    expect(job.roles.map((r) => r.role)).toEqual(['worker']);
    expect(job.elastic).toEqual({ minReplicas: 1, maxReplicas: 80, unit: 1 });
  });

  it('copies the submission: dataset, data and hidden PS truth', () => {
    const data = { samplesPerEpoch: 1000, epochs: 2, batchSize: 64, minibatchesPerShard: 10 };
    const psTruth = { variableSizes: [3, 1], psMemBaseMiB: 2048, psMemGrowthMiBPerStep: 0.5, workerMemMiB: 3000, workerCpuMilli: 4000, psCpuMilli: 8000 };
    const job = elasticJobSpec(valid(manifest()), { submitS: 60, user: 'bob', dataset: 'criteo', totalSteps: dataSteps(data), data, speed: PS_SPEED, psTruth, source: 's' });
    expect(job).toMatchObject({ submitS: 60, user: 'bob', dataset: 'criteo', data, psTruth, totalSteps: 32 });
  });

  it('counts the steps of dynamic-sharding data as ceil(samples x epochs / batch)', () => {
    expect(dataSteps({ samplesPerEpoch: 1000, epochs: 3, batchSize: 100 })).toBe(30);
    expect(dataSteps({ samplesPerEpoch: 1001, epochs: 3, batchSize: 100 })).toBe(31);
  });
});

describe('manifest problems', () => {
  it('an unknown key anywhere is an error at its path', () => {
    const top = manifest();
    top.status = {};
    expect(problem(top)).toBe('status: unknown key "status"');
    const deep = manifest();
    deep.spec.replicaSpecs.worker.template.spec.containers[0].resources.limits.gpu = 1;
    expect(problem(deep)).toBe('spec.replicaSpecs.worker.template.spec.containers[0].resources.limits.gpu: unknown key "gpu"');
    const role = manifest();
    role.spec.replicaSpecs.launcher = role.spec.replicaSpecs.worker;
    expect(problem(role)).toBe('spec.replicaSpecs.launcher: unknown key "launcher"');
  });

  it('names a bad quantity', () => {
    const raw = manifest();
    raw.spec.replicaSpecs.ps.template.spec.containers[0].resources.limits.memory = '4GB';
    expect(problem(raw)).toBe(
      'spec.replicaSpecs.ps.template.spec.containers[0].resources.limits.memory: expected a memory quantity like "4Gi", "4170Mi", "3G" or a number of bytes, got "4GB"',
    );
    raw.spec.replicaSpecs.ps.template.spec.containers[0].resources.limits = { cpu: '0' };
    expect(problem(raw)).toBe('spec.replicaSpecs.ps.template.spec.containers[0].resources.limits.cpu: expected a positive quantity up to 4096 cores, got "0"');
    const budget = manifest();
    budget.spec.resourceLimits = { cpu: '15 cores', memory: '1Gi' };
    expect(problem(budget)).toBe('spec.resourceLimits.cpu: expected a CPU quantity like "2", "0.5" or "500m", got "15 cores"');
    const gpus = manifest();
    gpus.spec.replicaSpecs.worker.template.spec.containers[0].resources.limits['nvidia.com/gpu'] = 0.5;
    expect(problem(gpus)).toBe('spec.replicaSpecs.worker.template.spec.containers[0].resources.limits.nvidia.com/gpu: expected a whole number of GPUs up to 128, got 0.5');
  });

  it('checks the resource type, the strategy and its roles', () => {
    expect(problem({ ...manifest(), apiVersion: 'kubeflow.org/v1' })).toBe('apiVersion: expected elastic.iml.github.io/v1alpha1');
    expect(problem({ ...manifest(), kind: 'TFJob' })).toBe('kind: expected ElasticJob');
    const strategy = manifest();
    strategy.spec.distributionStrategy = 'MirroredStrategy';
    expect(problem(strategy)).toBe('spec.distributionStrategy: expected ParameterServerStrategy or AllreduceStrategy');
    const noPs = manifest();
    delete noPs.spec.replicaSpecs.ps;
    expect(problem(noPs)).toBe('spec.replicaSpecs: a ParameterServerStrategy job needs a ps replica spec (replicaSpecs.ps)');
    const psInAllreduce = manifest('AllreduceStrategy');
    psInAllreduce.spec.replicaSpecs.ps = manifest().spec.replicaSpecs.ps;
    expect(problem(psInAllreduce)).toBe('spec.replicaSpecs.ps: ps is only for ParameterServerStrategy jobs');
    const noWorker = manifest();
    delete noWorker.spec.replicaSpecs.worker;
    expect(problem(noWorker)).toBe('spec.replicaSpecs: needs a worker replica spec (replicaSpecs.worker)');
    const mode = manifest();
    mode.spec.optimizeMode = 'auto';
    expect(problem(mode)).toBe('spec.optimizeMode: expected manual, single-job or cluster');
  });

  it('no workers only for an auto-scaled PS job; no PS or chief never', () => {
    const zero = manifest();
    zero.spec.replicaSpecs.worker.replicas = 0;
    expect(problem(zero)).toMatch(/^spec\.replicaSpecs\.worker\.replicas: no workers only for an auto-scaled worker role/);
    zero.spec.replicaSpecs.worker.autoScale = true;
    expect(validateElasticJob(zero).ok).toBe(true);
    const allreduce = manifest('AllreduceStrategy');
    allreduce.spec.replicaSpecs.worker.replicas = 0;
    allreduce.spec.replicaSpecs.worker.autoScale = true;
    expect(problem(allreduce)).toMatch(/^spec\.replicaSpecs\.worker\.replicas: no workers only/);
    const noPs = manifest();
    noPs.spec.replicaSpecs.ps.replicas = 0;
    expect(problem(noPs)).toBe('spec.replicaSpecs.ps.replicas: expected at least one ps');
  });

  it('a container needs an image, except the dlrover-master one (DLRover fills it in)', () => {
    const raw = manifest();
    delete raw.spec.replicaSpecs.worker.template.spec.containers[0].image;
    expect(problem(raw)).toBe('spec.replicaSpecs.worker.template.spec.containers[0].image: required');
    const master = manifest();
    master.spec.replicaSpecs['dlrover-master'] = { template: { spec: { containers: [{ name: 'main', imagePullPolicy: 'Always' }] } } };
    expect(validateElasticJob(master).ok).toBe(true);
  });

  it('a volume names exactly one source', () => {
    const raw = manifest();
    raw.spec.replicaSpecs.worker.template.spec.volumes = [{ name: 'v', hostPath: { path: '/a' }, emptyDir: {} }];
    expect(problem(raw)).toBe('spec.replicaSpecs.worker.template.spec.volumes[0]: expected exactly one volume source (persistentVolumeClaim, hostPath, emptyDir, configMap, secret, nfs), got hostPath and emptyDir');
  });

  it('a metadata.name must be a Kubernetes name', () => {
    const raw = manifest();
    raw.metadata.name = 'Job_A';
    expect(problem(raw)).toMatch(/^metadata\.name: expected a Kubernetes name/);
  });
});

describe('manifest files', () => {
  const text = readFileSync(join(FIXTURES, 'ctr-manual.yaml'), 'utf8');

  it("reports a problem at the manifest file's own line and path", () => {
    const bad = text.replace('                  cpu: "2"\n', '                  cpu: "2"\n                  cpus: "2"\n');
    const { file, message } = fileError(bad);
    const line = bad.split('\n').indexOf('                  cpus: "2"') + 1;
    expect(message).toBe(`${file}:${line}: spec.replicaSpecs.ps.template.spec.containers[0].resources.limits: unknown key "cpus"`);
  });

  it('reports a bad value at its line', () => {
    const bad = text.replace('memory: 4170Mi', 'memory: 4170MB');
    const { file, message } = fileError(bad);
    const line = bad.split('\n').findIndex((l) => l.includes('4170MB')) + 1;
    expect(message).toBe(`${file}:${line}: spec.replicaSpecs.worker.template.spec.containers[0].resources.requests.memory: expected a memory quantity like "4Gi", "4170Mi", "3G" or a number of bytes, got "4170MB"`);
  });

  it('reports a missing key at the mapping that lacks it', () => {
    const bad = text.replace('  distributionStrategy: ParameterServerStrategy\n', '');
    const { file, message } = fileError(bad);
    const line = bad.split('\n').indexOf('spec:') + 1;
    expect(message).toBe(`${file}:${line}: spec.distributionStrategy: required`);
  });

  it('reports YAML syntax errors and several documents with their line', () => {
    expect(fileError('apiVersion: [\n').message).toMatch(/job\.yaml:\d+: /);
    const twice = `${text}\n---\n${text}`;
    const { file, message } = fileError(twice);
    expect(message).toBe(`${file}:${twice.split('\n').indexOf('---') + 1}: a second YAML document: a manifest file holds one ElasticJob`);
    expect(fileError('# nothing but a comment\n').message).toMatch(/job\.yaml: expected a mapping \(an ElasticJob/);
  });

  it('a missing file is a ConfigError naming it', () => {
    expect(() => readElasticJobFile(join(FIXTURES, 'none.yaml'))).toThrow(`${join(FIXTURES, 'none.yaml')}: no such file`);
  });
});
