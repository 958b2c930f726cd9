import { describe, expect, it } from 'vitest';
import type { JobSpec } from '../../src/model/job-spec.js';
import { oomRelaunchMemMiB } from '../../src/policies/recovery/dlrover.js';
import type { Scenario } from '../../src/scenario/scenario.js';
import { Simulation } from '../../src/sim/simulation.js';
import { allreduceJob, faultType, gpuCluster, psJob, scenarioOf } from '../helpers.js';

const GIB = 1024;

/** A PS job of 2 workers and 1 PS (16 GiB asked) whose PS really uses `psUseGiB`. */
function psJobUsing(psUseGiB: number): JobSpec {
  return psJob('rec', 2, { replicas: 1, demand: { gpus: 0, gpuMilli: 1000, cpuMilli: 8000, memMiB: 16 * GIB }, memUseMiB: psUseGiB * GIB }, 20_000);
}

function run(job: JobSpec, policy: string, nodes = 4) {
  const scenario: Scenario = {
    ...scenarioOf(gpuCluster(nodes, 8, 100), [job], { policy, horizonS: 86_400 }),
    faults: { catalog: { name: 't', description: '', source: '', types: [] }, replay: [], hangTimeoutS: 600 },
  };
  return new Simulation(scenario, { checkInvariants: true }).run();
}

describe('OOM kills and DLRover relaunching with more memory', () => {
  it('raises memory like DLRover: double (capped at 64 GiB but for PS pods), at least the request, at most 8 GiB more', () => {
    expect(oomRelaunchMemMiB('worker', 16 * GIB, 16 * GIB)).toBe(24 * GIB);
    expect(oomRelaunchMemMiB('worker', 2 * GIB, 2 * GIB)).toBe(4 * GIB);
    expect(oomRelaunchMemMiB('worker', 60 * GIB, 60 * GIB)).toBe(64 * GIB);
    expect(oomRelaunchMemMiB('ps', 60 * GIB, 60 * GIB)).toBe(68 * GIB);
    expect(oomRelaunchMemMiB('worker', 2 * GIB, 5 * GIB)).toBe(5 * GIB);
  });

  it('a PS pod short of memory is OOM-killed 10 minutes into training and relaunched with more until it fits', () => {
    const result = run(psJobUsing(30), 'dlrover');
    const ooms = result.timeline.filter((r) => r.event === 'job-oom');
    expect(ooms.map((r) => r.detail)).toEqual(['ps pod with 16 GiB uses 30 GiB', 'ps pod with 24 GiB uses 30 GiB']);
    expect(ooms[0]!.timeS).toBe(600);
    expect(result.jobs[0]!.phase).toBe('completed');
    expect(result.jobs[0]!.restarts).toBe(2);
  });

  it('fails the job once the PS pod used up its three relaunches', () => {
    const result = run(psJobUsing(100), 'dlrover');
    expect(result.timeline.filter((r) => r.event === 'job-oom').map((r) => r.detail.split(' uses')[0])).toEqual([
      'ps pod with 16 GiB',
      'ps pod with 24 GiB',
      'ps pod with 32 GiB',
      'ps pod with 40 GiB',
    ]);
    expect(result.jobs[0]!.phase).toBe('failed');
    expect(result.timeline.at(-1)!.detail).toBe('recovery dlrover: relaunches of a ps pod exhausted');
    // Three relaunches; the fourth OOM kill ends the job and is not a restart.
    expect(result.jobs[0]!.restarts).toBe(3);
  });

  it('does not relaunch an OOM-killed worker of an all-reduce job: the job goes on without it', () => {
    const base = allreduceJob('llm', { workers: 4, totalSteps: 5000, elastic: { minReplicas: 2, maxReplicas: 4, unit: 2 } });
    const job: JobSpec = { ...base, roles: [{ ...base.roles[0]!, memUseMiB: base.roles[0]!.demand.memMiB + GIB }] };
    const result = run(job, 'dlrover', 8);
    const recovering = result.timeline.filter((r) => r.event === 'job-recovering').map((r) => r.detail.split(';')[0]);
    // Every worker is short of memory: each start loses one until the job cannot shrink further.
    expect(recovering[0]).toBe('relaunches exhausted: scaled down to 2 workers');
    expect(result.jobs[0]!.phase).toBe('failed');
  });

  it('treats a catalog fault that exits with OOM like an OOM kill of the job pod on that node', () => {
    const oomFault = { ...faultType('host-oom', { kind: 'crash' }), exit: 'oom' as const };
    const job = allreduceJob('llm', { workers: 4, totalSteps: 5000, elastic: { minReplicas: 2, maxReplicas: 4, unit: 2 } });
    const scenario: Scenario = {
      ...scenarioOf(gpuCluster(8, 8, 100), [job], { policy: 'dlrover', horizonS: 86_400 }),
      faults: { catalog: { name: 't', description: '', source: '', types: [] }, replay: [{ timeS: 1000, type: oomFault, nodeIndex: 1, gpuIndex: 0, repairS: 0 }], hangTimeoutS: 600 },
    };
    const result = new Simulation(scenario, { checkInvariants: true }).run();
    expect(result.timeline.find((r) => r.event === 'job-recovering')!.detail.split(';')[0]).toBe('relaunches exhausted: scaled down to 2 workers');
    expect(result.jobs[0]!.phase).toBe('completed');
  });

  it('manual recovery resubmits the job as it was: it is OOM-killed again every time', () => {
    const result = run(psJobUsing(30), 'fifo');
    const ooms = result.timeline.filter((r) => r.event === 'job-oom');
    expect(ooms.length).toBeGreaterThan(3);
    expect(new Set(ooms.map((r) => r.detail))).toEqual(new Set(['ps pod with 16 GiB uses 30 GiB']));
  });
});
