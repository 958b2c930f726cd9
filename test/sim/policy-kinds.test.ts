/**
 * Every policy kind runs from a scenario through `policies:`: a trivial auto-scaler and a trivial
 * data-worker policy, each registered in this file only, run end to end with their options
 * checked; the host's order and its conflict rule; observations sampled only for listened jobs.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError } from '../../src/errors.js';
import type { AutoscalePolicy } from '../../src/policies/autoscale/types.js';
import type { DataPolicy } from '../../src/policies/data/types.js';
import type { Decision } from '../../src/policies/decision.js';
import { presetNames } from '../../src/policies/presets.js';
import { registerPolicy } from '../../src/policies/registry.js';
import { createFifo } from '../../src/policies/scheduling/fifo.js';
import type { SchedulingPolicy } from '../../src/policies/types.js';
import { loadScenario } from '../../src/scenario/load.js';
import { Simulation } from '../../src/sim/simulation.js';
import { rejection } from '../cli-run.js';
import { batchJob, gpuCluster, psJob, scenarioOf } from '../helpers.js';

/** What the test policies saw, for the assertions. */
const seen = { samplesAtGrowth: [] as number[], attached: [] as string[] };

// A trivial auto-scaler: listens to every running PS job and, once it has two samples of it, doubles its PS's CPU.
registerPolicy('autoscale', 'test-ps-doubler', {
  options: z.strictObject({ factor: z.number().min(1).default(2) }),
  create: (_handle, options): AutoscalePolicy => {
    const grown = new Set<string>();
    const factor = options['factor'] as number;
    return {
      name: 'test-ps-doubler',
      tickS: 60,
      autoscale(context): Decision[] {
        const decisions: Decision[] = [];
        for (const job of context.running) {
          if (job.request.kind !== 'ps' || grown.has(job.request.id)) continue;
          context.listen(job.request.id);
          const samples = context.samples(job.request.id);
          if (samples.length < 2 || job.paused) continue;
          const ps = context.cluster.tasksOf(job.request.id)!.find((t) => t.role === 'ps')!;
          const scratch = context.scratch();
          scratch.unreserve([ps]);
          const add = context.placement.place(scratch, { jobId: job.request.id, gpuTypes: [], replicas: [{ role: 'ps', demand: { ...ps.demand, cpuMilli: ps.demand.cpuMilli * factor } }] });
          if (!add) continue;
          grown.add(job.request.id);
          seen.samplesAtGrowth.push(samples.length);
          decisions.push({ kind: 'reshape-role', jobId: job.request.id, role: 'ps', add, remove: [ps], pause: 'checkpoint-restore' });
        }
        return decisions;
      },
    };
  },
});

// A trivial data policy: one auxiliary task of `cores` on node 1 for each running job, once.
registerPolicy('data', 'test-one-worker', {
  options: z.strictObject({ cores: z.number().positive() }),
  create: (_handle, options): DataPolicy => {
    const given = new Set<string>();
    const cpuMilli = (options['cores'] as number) * 1000;
    return {
      name: 'test-one-worker',
      data(context): Decision[] {
        const decisions: Decision[] = [];
        for (const job of context.running) {
          if (given.has(job.request.id) || context.cluster.idleCpuMilli(1) < cpuMilli) continue;
          given.add(job.request.id);
          seen.attached.push(job.request.id);
          decisions.push({ kind: 'attach', jobId: job.request.id, tasks: [{ nodeIndex: 1, cpuMilli, memMiB: 1024 }] });
        }
        return decisions;
      },
    };
  },
});

const SCENARIO = `name: kinds
cluster:
  nodes:
    - {count: 2, gpus: 8, gpuType: A100, cpuCores: 96, memGiB: 1024}
workload:
  jobs:
    - id: recsys
      kind: ps
      replicas: 4
      gpus: 0
      cpuCores: 4
      memGiB: 8
      steps: 100000
      speed: {t0: 0.1, t1: 0.02, t2: 0.002, t3: 0.005}
      ps: {replicas: 1, gpus: 0, cpuCores: 4, memGiB: 8}
      checkpoint: {interval: 1h, save: 30s, load: 1m}
`;

function scenarioFile(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'dlsim-kinds-'));
  const file = join(dir, 's.yaml');
  writeFileSync(file, text);
  return file;
}

describe('policies registered in one file run from a scenario through policies:', () => {
  it('an auto-scaler reads samples of the job it listens to and reshapes it; a data policy attaches a worker; the job ends sooner', async () => {
    const file = scenarioFile(`${SCENARIO}policies:\n  autoscale: test-ps-doubler\n  data: {name: test-one-worker, options: {cores: 16}}\n`);
    const scenario = await loadScenario(file, { knownPolicies: presetNames() });
    expect(scenario.policies?.autoscale).toEqual({ name: 'test-ps-doubler', options: { factor: 2 } });
    const result = new Simulation(scenario, { checkInvariants: true }).run();
    const plain = new Simulation(await loadScenario(scenarioFile(SCENARIO), { knownPolicies: presetNames() }), { checkInvariants: true }).run();
    const job = result.jobs[0]!;
    expect(job.reshapes).toBe(1);
    // Listened from its first consultation at 60 s; sampled every 30 s: two samples by 120 s.
    expect(seen.samplesAtGrowth).toEqual([2]);
    expect(seen.attached).toEqual(['recsys']);
    expect(result.summary.jobs.completed).toBe(1);
    expect(job.endS!).toBeLessThan(plain.jobs[0]!.endS!);
  });

  it('--set policies.data=… chooses a policy; options are checked by the policy at their YAML path', async () => {
    const file = scenarioFile(SCENARIO);
    const chosen = await loadScenario(file, { knownPolicies: presetNames(), sets: ['policies.data={name: test-one-worker, options: {cores: 2}}'] });
    expect(chosen.policies?.data).toEqual({ name: 'test-one-worker', options: { cores: 2 } });
    const badOption = await rejection(loadScenario(scenarioFile(`${SCENARIO}policies:\n  data: {name: test-one-worker, options: {cores: -1}}\n`), { knownPolicies: presetNames() }));
    expect(badOption).toBeInstanceOf(ConfigError);
    expect((badOption as Error).message).toMatch(/s\.yaml:\d+: policies\.data\.options\.cores: /);
    const unknownOption = await rejection(loadScenario(scenarioFile(`${SCENARIO}policies:\n  autoscale: {name: test-ps-doubler, options: {speed: 3}}\n`), { knownPolicies: presetNames() }));
    expect((unknownOption as Error).message).toMatch(/policies\.autoscale\.options\.speed/);
    const unknown = await rejection(loadScenario(file, { knownPolicies: presetNames(), sets: ['policies.autoscale=goldminer'] }));
    expect((unknown as Error).message).toMatch(/^--set policies\.autoscale=goldminer: policies\.autoscale: unknown autoscale policy "goldminer"; known: none, dlrover-brain, test-ps-doubler$/);
    const noOptions = await rejection(loadScenario(scenarioFile(`${SCENARIO}policies:\n  scheduling: {name: sjf, options: {x: 1}}\n`), { knownPolicies: presetNames() }));
    expect((noOptions as Error).message).toMatch(/policies\.scheduling\.options\.x: scheduling policy sjf takes no options/);
    const unknownFifoOption = await rejection(loadScenario(scenarioFile(`${SCENARIO}policies:\n  scheduling: {name: fifo, options: {x: 1}}\n`), { knownPolicies: presetNames() }));
    expect((unknownFifoOption as Error).message).toMatch(/s\.yaml:\d+: policies\.scheduling\.options\.x: unknown key "x"$/);
  });

  it('a shipped scheduling policy runs from policies: without a preset naming it, with its options', async () => {
    const file = scenarioFile(`${SCENARIO}policy: fifo\npolicies:\n  scheduling: {name: drf-dynamic, options: {interval: 5m}}\n`);
    const scenario = await loadScenario(file, { knownPolicies: presetNames() });
    expect(scenario.policies?.scheduling).toEqual({ name: 'drf-dynamic', options: { interval: 300 } });
    expect(new Simulation(scenario).run().summary.jobs.completed).toBe(1);
  });
});

describe('the policy host', () => {
  it('drops a later kind\'s decision on a job an earlier kind changed in the same instant, and counts it', () => {
    const job = { ...psJob('p', 4, { replicas: 1, demand: { gpus: 0, gpuMilli: 1000, cpuMilli: 4000, memMiB: 8192 } }, 100_000), elastic: { minReplicas: 1, maxReplicas: 8, unit: 1 } };
    const fifo = createFifo();
    const order: string[] = [];
    // Scheduling resizes p at its first tick; auto-scaling wants to reshape p in that same instant.
    const scheduling: SchedulingPolicy = {
      name: 'fifo-resizing',
      tickS: 100,
      schedule(context) {
        order.push(`scheduling@${context.nowS}`);
        const p = context.running.find((j) => j.request.id === 'p');
        if (!p || context.nowS !== 100) return fifo.schedule(context);
        const worker = context.cluster.tasksOf('p')!.find((t) => t.role === 'worker')!;
        return [{ kind: 'resize', jobId: 'p', add: [], remove: [worker] }];
      },
    };
    const autoscale: AutoscalePolicy = {
      name: 'late-reshaper',
      tickS: 100,
      autoscale(context) {
        order.push(`autoscale@${context.nowS}`);
        if (context.nowS !== 100) return [];
        const worker = context.cluster.tasksOf('p')!.find((t) => t.role === 'worker')!;
        return [{ kind: 'reshape-role', jobId: 'p', role: 'worker', add: [], remove: [worker], pause: 'none' }];
      },
    };
    const sim = new Simulation(scenarioOf(gpuCluster(1, 8), [job]), { schedulingPolicy: scheduling, autoscalePolicy: autoscale, checkInvariants: true });
    const result = sim.run();
    expect(order.slice(0, 3)).toEqual(['scheduling@0', 'scheduling@100', 'autoscale@100']);
    expect(sim.policyConflicts).toBe(1);
    expect(result.jobs[0]!.resizes).toBe(1);
    expect(result.jobs[0]!.reshapes).toBe(0);
  });

  it('tells the scheduling policy what changed since it last looked, and only that', () => {
    const fifo = createFifo();
    const passes: string[] = [];
    const scheduling: SchedulingPolicy = {
      name: 'fifo-watching-changes',
      schedule(context) {
        const ids = (jobs: readonly { request: { id: string } }[]): string => jobs.map((j) => j.request.id).join(',');
        passes.push(`${context.nowS}: +${ids(context.changes.queued)} >${ids(context.changes.started)} -${ids(context.changes.stopped)}`);
        return fifo.schedule(context);
      },
    };
    // a fills the node until 1000 s; b waits behind it; c arrives at 500 s.
    const jobs = [batchJob('a', 0, 8, 1000), batchJob('b', 100, 8, 100), batchJob('c', 500, 8, 100)];
    new Simulation(scenarioOf(gpuCluster(1, 8), jobs), { schedulingPolicy: scheduling, checkInvariants: true }).run();
    expect(passes).toEqual(['0: +a > -', '100: +b >a -', '500: +c > -', '1000: + > -a', '1100: + >b -b']);
    // After an idle spell (nothing queued or running, so no pass), the next pass still hears of the stop.
    passes.length = 0;
    new Simulation(scenarioOf(gpuCluster(1, 8), [batchJob('a', 0, 8, 100), batchJob('b', 500, 8, 100)]), { schedulingPolicy: scheduling, checkInvariants: true }).run();
    expect(passes).toEqual(['0: +a > -', '500: +b >a -a']);
  });

  it('an autoscale policy may not start jobs', () => {
    const autoscale: AutoscalePolicy = {
      name: 'starter',
      tickS: 10,
      autoscale: (context) => (context.running.length > 0 ? [{ kind: 'preempt', jobId: context.running[0]!.request.id }] : []),
    };
    const job = psJob('p', 1, { replicas: 1, demand: { gpus: 0, gpuMilli: 1000, cpuMilli: 1000, memMiB: 1024 } }, 100_000);
    expect(() => new Simulation(scenarioOf(gpuCluster(1, 8), [job]), { autoscalePolicy: autoscale }).run()).toThrow(/starter: a autoscale policy cannot preempt/);
  });
});
