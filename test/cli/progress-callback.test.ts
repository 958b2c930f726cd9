import fc from 'fast-check';
import { MessageChannel } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import type { Progress, RunProgress } from '../../src/cli/progress.js';
import { followRun, postProgress } from '../../src/cli/progress-port.js';
import { runMany } from '../../src/cli/run-many.js';
import { presetNames } from '../../src/policies/presets.js';
import { loadScenario } from '../../src/scenario/load.js';
import { simulate, type SimProgress } from '../../src/sim/simulation.js';

/** The default scenario cut to 40 jobs (a few hundred events). */
const small = (): ReturnType<typeof loadScenario> => loadScenario('scenarios/default.yaml', { knownPolicies: presetNames(), sets: ['workload.synthetic.jobs=40'] });

/** A Progress that records what it was told, as a list of calls. */
function recorder(): { progress: Progress; calls: string[]; updates: Map<string, SimProgress[]> } {
  const calls: string[] = [];
  const updates = new Map<string, SimProgress[]>();
  const progress: Progress = {
    shown: true,
    startRun(label: string, lane?: number): RunProgress {
      calls.push(`start ${label}${lane === undefined ? '' : ` @${lane}`}`);
      updates.set(label, []);
      return { update: (p) => void updates.get(label)!.push(p), finish: () => void calls.push(`finish ${label}`) };
    },
    skip: (runs) => void calls.push(`skip ${runs}`),
    log: (line) => void calls.push(`log ${line}`),
    stop: () => void calls.push('stop'),
  };
  return { progress, calls, updates };
}

describe('SimOptions.onProgress', () => {
  it('is told the start, every N live events and the end, and nothing else', async () => {
    const scenario = await small();
    const seen: SimProgress[] = [];
    const result = simulate(scenario, { onProgress: (p) => seen.push(p), progressEveryEvents: 25 });
    const events = result.summary.events;
    expect(events).toBeGreaterThan(100);
    expect(seen.length).toBe(Math.floor(events / 25) + 2);
    expect(seen[0]).toMatchObject({ events: 0, jobsDone: 0, jobsTotal: 40, done: false });
    expect(seen.slice(1, -1).map((p) => p.events)).toEqual(seen.slice(1, -1).map((_, i) => 25 * (i + 1)));
    const last = seen.at(-1)!;
    expect(last).toMatchObject({ done: true, events, simS: result.endS, jobsTotal: 40 });
    expect(last.jobsDone).toBe(result.summary.jobs.completed + result.summary.jobs.failed);
    for (let i = 1; i < seen.length; i++) {
      expect(seen[i]!.simS).toBeGreaterThanOrEqual(seen[i - 1]!.simS);
      expect(seen[i]!.jobsDone).toBeGreaterThanOrEqual(seen[i - 1]!.jobsDone);
    }
  });

  it('is called at most events/N + 2 times for any N, and leaves the run as it is without it', async () => {
    const scenario = await small();
    const plain = simulate(scenario).summary;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 400 }), async (every) => {
        let calls = 0;
        const summary = simulate(scenario, { onProgress: () => void calls++, progressEveryEvents: every }).summary;
        expect(calls).toBeLessThanOrEqual(summary.events / every + 2);
        expect(calls).toBeGreaterThanOrEqual(2);
        expect(summary).toEqual(plain);
      }),
      { numRuns: 6 },
    );
  });
});

describe('progress across a worker port', () => {
  it('posts the start with its lane, then at most one update per 250 ms of its clock, and always the end', async () => {
    const { port1, port2 } = new MessageChannel();
    const { progress, calls, updates } = recorder();
    const end = followRun(port1, progress, 'fifo s1');
    let now = 0;
    const post = postProgress(port2, 3, () => now);
    const p = (jobsDone: number, done = false): SimProgress => ({ simS: jobsDone, startS: 0, horizonS: Infinity, jobsDone, jobsTotal: 10, events: jobsDone * 7, done });
    post(p(0));
    now = 100;
    post(p(1));
    now = 300;
    post(p(2));
    now = 310;
    post(p(10, true));
    // The end's message arrives last (one port keeps its order).
    await new Promise<void>((resolve) => port1.on('message', (m: { progress?: SimProgress }) => m.progress?.done === true && resolve()));
    end();
    expect(calls).toEqual(['start fifo s1 @3', 'finish fifo s1']);
    expect(updates.get('fifo s1')!.map((u) => u.jobsDone)).toEqual([0, 2, 10]);
    port2.close();
  });

  it('finishes a run whose start never came', () => {
    const { port1 } = new MessageChannel();
    const { progress, calls } = recorder();
    const end = followRun(port1, progress, 'drf s2');
    end();
    end();
    expect(calls).toEqual(['start drf s2', 'finish drf s2']);
  });
});

describe('runMany with progress (in this thread)', () => {
  it('starts, feeds and finishes a line per run, and returns the same summaries as without it', async () => {
    const requests = ['fifo', 'drf'].map((policy) => ({ file: 'scenarios/quickstart.yaml', policy, seed: 1, sets: [] }));
    const { progress, calls, updates } = recorder();
    const withBars = await runMany(requests, 1, progress);
    expect(calls).toEqual(['start fifo s1', 'finish fifo s1', 'start drf s1', 'finish drf s1']);
    expect(updates.get('drf s1')!.at(-1)).toMatchObject({ done: true });
    expect(withBars).toEqual(await runMany(requests, 1));
  });
});
