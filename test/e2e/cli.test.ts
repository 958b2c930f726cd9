import { existsSync, mkdtempSync, statSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, dlsim } from '../cli-run.js';


/** Runs the built CLI and returns exit code, stdout and stderr. */
function withoutPerf(json: string): unknown {
  const { perf, ...rest } = JSON.parse(json) as Record<string, unknown>;
  expect(perf).toBeDefined();
  return rest;
}

describe('dlsim CLI', () => {
  it('is built (npm test builds before testing)', () => {
    expect(existsSync(CLI)).toBe(true);
  });

  it('is executable by its owner once built, so `npx dlsim` can start it', () => {
    expect(statSync(CLI).mode & 0o100).toBe(0o100);
  });

  it('run --json prints exactly one summary object with every contract key, the same on a second run', () => {
    const first = dlsim('run', 'scenarios/quickstart.yaml', '--json');
    expect(first.code).toBe(0);
    expect(first.stderr).toBe('');
    const summary = JSON.parse(first.stdout) as Record<string, unknown>;
    for (const key of ['scenario', 'policy', 'seed', 'jobs', 'makespanS', 'jctS', 'queueDelayS', 'ettr', 'runtimeRatio',
      'gpuAllocationRate', 'gpuUtilization', 'cpuAllocationRate', 'faults', 'restarts', 'lostGpuHours', 'events', 'perf']) {
      expect(summary).toHaveProperty(key);
    }
    expect(summary.policy).toBe('fifo');
    const second = dlsim('run', 'scenarios/quickstart.yaml', '--json');
    expect(withoutPerf(second.stdout)).toEqual(withoutPerf(first.stdout));
  });

  it('gives byte-identical summaries for the default scenario apart from perf', () => {
    const a = dlsim('run', 'scenarios/default.yaml', '--json');
    const b = dlsim('run', 'scenarios/default.yaml', '--json');
    expect(a.code).toBe(0);
    const strip = (s: string) => s.replace(/"perf": \{[^}]*\}/, '');
    expect(strip(b.stdout)).toBe(strip(a.stdout));
    const summary = JSON.parse(a.stdout) as { jobs: { submitted: number; completed: number } };
    expect(summary.jobs.submitted).toBe(250);
    expect(summary.jobs.completed).toBe(250);
  });

  it('prints a readable table without --json', () => {
    const run = dlsim('run', 'scenarios/quickstart.yaml');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/scenario quickstart\s+policy fifo\s+seed 1/);
    expect(run.stdout).toMatch(/JCT/);
    expect(run.stdout).toMatch(/GPU allocation\s+\d+\.\d%/);
  });

  it('honours --seed and --set', () => {
    const base = JSON.parse(dlsim('run', 'scenarios/default.yaml', '--json').stdout) as { seed: number; jctS: { mean: number } };
    const seeded = JSON.parse(dlsim('run', 'scenarios/default.yaml', '--json', '--seed', '2').stdout) as typeof base;
    expect(seeded.seed).toBe(2);
    expect(seeded.jctS.mean).not.toBe(base.jctS.mean);
    const small = JSON.parse(
      dlsim('run', 'scenarios/default.yaml', '--json', '--set', 'workload.synthetic.jobs=25').stdout,
    ) as { jobs: { submitted: number } };
    expect(small.jobs.submitted).toBe(25);
  });

  it('--out writes summary.json, jobs.csv, timeline.csv, the report\'s data and report.html, and leaves no temporary files', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'dlsim-')), 'nested', 'out');
    const run = dlsim('run', 'scenarios/quickstart.yaml', '--out', out, '--json');
    expect(run.code).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['autoscale.csv', 'gantt.csv', 'jobs.csv', 'report.html', 'summary.json', 'timeline.csv', 'usage.csv']);
    expect(readFileSync(join(out, 'timeline.csv'), 'utf8')).toBe('timeS,event,faultType,node,gpu,job,detail\n');
    expect(withoutPerf(readFileSync(join(out, 'summary.json'), 'utf8'))).toEqual(withoutPerf(run.stdout));
    const lines = readFileSync(join(out, 'jobs.csv'), 'utf8').trim().split('\n');
    expect(lines[0]).toBe('id,kind,submitS,startS,endS,jctS,queueS,state,gpus,restarts,ettr,lostGpuHours,runningS,failureReason,queuedS,pausedS,preemptions,resizes,checkpointingS,detectingS,lostSteps,productiveS,reschedulingS,healthCheckS,startingS,loadingS,resizingS,scaledDownS,slowedS,downtimeGpuHours,user,nodes,meanStepsPerS,finalStepsPerS,maxWorkers,maxPs,oomKills,psMigrations,droppedShards,secondsTo90PctSpeed,firstStepsPerS,cpuStarvedWaitS,waitNotChosenS,waitHeadOfLineS,waitNoGpusS,waitFragmentedS,waitGangS,waitCpuMemoryS,waitPriorityS,waitPreemptedS,waitBlockedBy');
    const summary = JSON.parse(run.stdout) as { jobs: { submitted: number } };
    expect(lines.length - 1).toBe(summary.jobs.submitted);
  });

  it('exits 1 with one line naming the known policies for an unknown policy', () => {
    const run = dlsim('run', 'scenarios/quickstart.yaml', '--policy', 'nope');
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/unknown policy "nope".*fifo/);
  });

  it('exits 1 with one line naming a missing file', () => {
    const run = dlsim('run', 'scenarios/does-not-exist.yaml');
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/scenarios\/does-not-exist\.yaml/);
  });

  it('exits 1 naming the file, line and YAML path of an invalid value', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'dlsim-')), 'bad.yaml');
    writeFileSync(
      file,
      ['cluster:', '  nodes:', '    - { gpus: 8, gpuType: A100, cpuCores: 8, memGiB: 64 }', '    - gpus: -2', '      cpuCores: 8',
        '      memGiB: 64', 'workload:', '  jobs:', '    - { gpus: 1, duration: 1h }', ''].join('\n'),
    );
    const run = dlsim('run', file);
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain(`${file}:4: cluster.nodes[1].gpus`);
  });

  it('exits 1 on malformed YAML and on a bad --seed, without a stack', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'dlsim-')), 'broken.yaml');
    writeFileSync(file, 'cluster: [\n  nodes: {\n');
    const broken = dlsim('run', file);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain(file);
    expect(broken.stderr).not.toMatch(/\n\s+at /);
    const seed = dlsim('run', 'scenarios/quickstart.yaml', '--seed', '-3');
    expect(seed.code).toBe(1);
    expect(seed.stderr).toMatch(/--seed/);
  });

  it('exits 1 on an unknown command or option', () => {
    expect(dlsim('fly').code).toBe(1);
    const option = dlsim('run', 'scenarios/quickstart.yaml', '--colour');
    expect(option.code).toBe(1);
    expect(option.stderr).toMatch(/colour/);
  });

  it('list shows the presets, and --json prints them as one object', () => {
    const text = dlsim('list');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/fifo\s+scheduling=fifo placement=pack/);
    expect(text.stdout).toMatch(/dlrover\s+replace 2m, scaleDown 3m, .*detect 5m/);
    const json = JSON.parse(dlsim('list', '--json').stdout) as {
      presets: Record<string, unknown>;
      policies: { scheduling: string[] };
      recoveryTimesS: Record<string, Record<string, number>>;
    };
    expect(Object.keys(json.presets)).toContain('fifo');
    expect(json.policies.scheduling).toContain('fifo');
    expect(json.recoveryTimesS['manual']).toMatchObject({ poll: 600, reschedule: 300 });
  });
});
