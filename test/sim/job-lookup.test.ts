import { describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine/engine.js';
import { ClusterState } from '../../src/model/cluster-state.js';
import type { SimEvent } from '../../src/sim/events.js';
import { FaultTracker } from '../../src/sim/fault-tracker.js';
import { JobControl } from '../../src/sim/job-control.js';
import { JobNumbers, JobRuntime } from '../../src/sim/job-runtime.js';
import { markIdsUnique } from '../../src/model/job-ids.js';
import { batchJob, gpuCluster, scenarioOf } from '../helpers.js';

function setup(ids: string[]) {
  const scenario = scenarioOf(gpuCluster(1), ids.map((id) => batchJob(id, 0, 1, 100)));
  const engine = new Engine<SimEvent>({ isStale: () => false, dispatch: () => {}, endOfInstant: () => {} });
  const store = new JobNumbers(scenario.jobs.length);
  const jobs = scenario.jobs.map((spec) => new JobRuntime(spec, 1, engine, store));
  const make = (): JobControl =>
    new JobControl({ engine, cluster: new ClusterState(scenario.cluster), scenario, tracker: new FaultTracker(scenario.cluster.nodes.map((n) => n.gpus)), jobs });
  return { scenario, jobs, make };
}

describe('job lookup by id', () => {
  it('finds any job of the run by id, queued, running or not (the map of every job made at the first such lookup)', () => {
    const { jobs, make } = setup(['a', 'b', 'c']);
    const control = make();
    expect(control.find('b')).toBe(jobs[1]);
    expect(control.job('c')).toBe(jobs[2]);
    expect(control.find('zz')).toBeUndefined();
    expect(() => control.job('zz')).toThrow(/unknown job zz/);
    expect(jobs.map((j) => j.arrivalIndex)).toEqual([0, 1, 2]);
    expect(control.jobsRemain()).toBe(true);
  });

  it('finds queued jobs by id, the queue\'s first and the others, before and after more join', () => {
    const { jobs, make } = setup(['a', 'b', 'c', 'd']);
    const control = make();
    for (const job of jobs.slice(0, 3)) control.arrive(job);
    expect(control.queued).toEqual(jobs.slice(0, 3));
    expect(control.find('a')).toBe(jobs[0]);
    expect(control.find('c')).toBe(jobs[2]);
    control.arrive(jobs[3]!);
    expect(control.find('d')).toBe(jobs[3]);
    expect(control.find('b')).toBe(jobs[1]);
    expect(control.find('a')).toBe(jobs[0]);
    expect(control.find('zz')).toBeUndefined();
  });

  it("takes a decision's view when it is the run's job of that id, looks any other view up by id, and refuses a view of another job", () => {
    const { jobs, make } = setup(['a', 'b', 'c']);
    const control = make();
    for (const job of jobs) control.arrive(job);
    // The run's own job: taken as it is.
    expect(control.jobNamed('b', jobs[1])).toBe(jobs[1]);
    // A view that is not one of the run's jobs (another run's, a wrapper): looked up by id.
    const other = setup(['b']).jobs[0]!;
    expect(control.jobNamed('b', other)).toBe(jobs[1]);
    expect(control.jobNamed('c', { request: { id: 'c' } })).toBe(jobs[2]);
    expect(control.jobNamed('a')).toBe(jobs[0]);
    // The run's job under another job's id: the policy's error.
    control.decidedBy = 'p';
    expect(() => control.jobNamed('a', jobs[2])).toThrow(/p: a decision for job a carries the view of job c/);
    expect(() => control.jobNamed('zz', { request: { id: 'zz' } })).toThrow(/unknown job zz/);
  });

  it('refuses two jobs with one id', () => {
    const { make } = setup(['a', 'b', 'a']);
    expect(make).toThrow(/duplicate job id a/);
  });

  it('does not look again at the ids of the scenario\'s list once it is marked unique, and looks at any other list', () => {
    const marked = setup(['a', 'b', 'a']);
    // A (false) mark on the scenario's list stands for the check: the runtimes are its jobs, in order.
    markIdsUnique(marked.scenario.jobs);
    expect(marked.make).not.toThrow();
    // The same mark, but runtimes not made from that list in its order: the ids are looked at.
    const { scenario, jobs, make } = setup(['a', 'b', 'a']);
    markIdsUnique(scenario.jobs);
    jobs.reverse();
    expect(make).toThrow(/duplicate job id a/);
  });
});
