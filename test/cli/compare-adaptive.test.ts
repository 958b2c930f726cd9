import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dlsim, folderWith } from '../cli-run.js';

/** A small random scenario: 60 one-hour-ish jobs on 4 nodes, so fifo queues and seeds differ. */
const SCENARIO = `name: small-random
seed: 1
policy: fifo
cluster:
  nodes:
    - {group: a100, count: 4, gpus: 8, gpuType: A100, cpuCores: 96, memGiB: 1024}
workload:
  synthetic:
    jobs: 60
    arrivalsPerHour: 20
    duration: {median: 1h, sigma: 0.3, min: 10m, max: 4h}
    gpus: {1: 0.5, 2: 0.25, 4: 0.25}
    gpusPerNode: 8
    cpuCoresPerGpu: 8
    memGiBPerGpu: 64
    kinds: {batch: 1}
    users: 4
`;

const file = join(folderWith({ 'small.yaml': SCENARIO }), 'small.yaml');

interface ComparisonJson {
  seeds: number[];
  metrics: Record<string, Record<string, { n: number; mean: number; ci95: number | null }>>;
  adaptiveSeeds?: { target: number; maxSeeds: number; seeds: number; stoppedBy: string; missed: { policy: string; metric: string }[] };
  provenance: { seeds: number[] };
}

describe('dlsim compare --seeds auto', () => {
  it('adds seeds until every headline interval is within --ci of its mean, then stops by itself; the same as --seeds N', () => {
    const auto = dlsim('compare', file, '--policies', 'fifo,sjf', '--seeds', 'auto', '--ci', '10%', '--workers', '1', '--json');
    expect(auto.code).toBe(0);
    const comparison = JSON.parse(auto.stdout) as ComparisonJson;
    const n = comparison.seeds.length;
    expect(comparison.adaptiveSeeds).toMatchObject({ target: 0.1, maxSeeds: 200, seeds: n, stoppedBy: 'target', missed: [] });
    expect(n).toBeGreaterThan(5);
    expect(n).toBeLessThan(200);
    for (const metric of ['jctS.mean', 'makespanS', 'gpuAllocationRate']) {
      for (const policy of ['fifo', 'sjf']) {
        const stats = comparison.metrics[metric]![policy]!;
        expect(stats.ci95!).toBeLessThanOrEqual(0.1 * Math.abs(stats.mean));
      }
    }
    // One line per batch on stderr; stdout is only the JSON.
    expect(auto.stderr).toMatch(new RegExp(`seeds auto: ${n} seeds`));
    const fixed = JSON.parse(dlsim('compare', file, '--policies', 'fifo,sjf', '--seeds', String(n), '--workers', '2', '--json').stdout) as ComparisonJson;
    const { adaptiveSeeds: _, ...rest } = comparison;
    expect(rest).toEqual(fixed);
  });

  it('stops at --max-seeds when the target cannot be met, naming what missed it', () => {
    const run = dlsim('compare', file, '--policies', 'fifo', '--seeds', 'auto', '--ci', '0.0001%', '--max-seeds', '7', '--workers', '1');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/scenario small-random\s+seeds 1, 2, 3, 4, 5, 6, 7 /);
    expect(run.stdout).toMatch(/seeds auto: stopped at the cap of 7 seeds; 95% CI not yet within 0.0001% of the mean: fifo JCT mean \(±[\d.]+%\)/);
    expect(run.stderr).toMatch(/5 seeds.*adding 2/);
  });

  it('refuses --ci and --max-seeds without auto, a bad --ci and auto on a fill scenario, one line each', () => {
    const cases: [string[], RegExp][] = [
      [['--seeds', '3', '--ci', '5%'], /--ci: applies only with --seeds auto/],
      [['--max-seeds', '9'], /--max-seeds: applies only with --seeds auto/],
      [['--seeds', 'auto', '--ci', '5'], /--ci: expected a percentage such as 5% or a fraction below 1 such as 0.05, got "5"/],
      [['--seeds', 'auto', '--max-seeds', '1'], /--max-seeds: expected an integer ≥ 2, got "1"/],
      [['--seeds', 'many'], /--seeds: expected a positive integer or auto, got "many"/],
    ];
    for (const [args, message] of cases) {
      const run = dlsim('compare', file, '--policies', 'fifo', ...args);
      expect(run.code).toBe(1);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toMatch(message);
    }
    const fill = dlsim('compare', 'scenarios/alibaba-gpu-2023-fill.yaml', '--policies', 'fifo', '--seeds', 'auto');
    expect(fill.code).toBe(1);
    expect(fill.stderr).toMatch(/--seeds: auto does not apply to a fill scenario/);
  });
});

describe('dlsim compare --metrics, paired differences and provenance', () => {
  it('prints only the chosen rows and their paired differences, marking intervals that leave out 0', () => {
    const run = dlsim('compare', file, '--policies', 'fifo,sjf', '--seeds', '4', '--metrics', 'jct,failed,fairness,queueDelayS', '--workers', '1');
    expect(run.code).toBe(0);
    const table = run.stdout.split('\n\n')[1]!.split('\n').map((line) => line.split(/\s{2,}/)[0]);
    expect(table).toEqual(['metric', 'JCT mean', 'jobs failed', "Jain's index of users' slowdowns", 'queueing mean', 'queueDelayS.p50', 'queueing p90', 'queueDelayS.p99']);
    expect(run.stdout).toMatch(/paired difference to fifo/);
    expect(run.stdout).toMatch(/JCT mean\s+-\S+ ± \S+ \*/);
    expect(run.stdout).not.toMatch(/GPU utilization/);
  });

  it('refuses an unknown metric in one line naming close matches', () => {
    const run = dlsim('compare', file, '--policies', 'fifo', '--metrics', 'jctS.mena');
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/--metrics: unknown metric "jctS.mena"; did you mean jctS.mean/);
  });

  it('records how the comparison and a run were made, the same every time', () => {
    const out = folderWith({});
    const first = dlsim('compare', file, '--policies', 'fifo,dlrover', '--seeds', '2', '--set', 'workload.synthetic.jobs=30', '--workers', '1', '--out', out, '--json');
    expect(first.code).toBe(0);
    const again = dlsim('compare', file, '--policies', 'fifo,dlrover', '--seeds', '2', '--set', 'workload.synthetic.jobs=30', '--workers', '1', '--json');
    const provenance = (JSON.parse(first.stdout) as { provenance: Record<string, unknown> }).provenance;
    expect(provenance).toEqual((JSON.parse(again.stdout) as { provenance: unknown }).provenance);
    expect(provenance).toEqual(JSON.parse(readFileSync(join(out, 'comparison.json'), 'utf8')).provenance);
    const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
    expect(provenance).toMatchObject({ dlsimVersion: version, scenarioFile: file, sets: ['workload.synthetic.jobs=30'], seeds: [1, 2] });
    expect(provenance.scenarioSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(provenance.policyStacks).toMatchObject({
      fifo: { scheduling: { name: 'fifo', options: {} }, recovery: { name: 'manual' }, autoscale: { name: 'none' }, data: { name: 'coupled' } },
      dlrover: { recovery: { name: 'dlrover' }, autoscale: { name: 'dlrover-brain' } },
    });
    // Not a metric: the CSV has none of it.
    expect(readFileSync(join(out, 'comparison.csv'), 'utf8')).not.toMatch(/provenance|perUser/);
    const run = dlsim('run', file, '--seed', '3', '--json');
    const summary = JSON.parse(run.stdout) as { provenance: { seeds: number[]; scenarioSha256: string; policyStack: unknown } };
    expect(summary.provenance).toMatchObject({ seeds: [3], scenarioSha256: provenance.scenarioSha256, policyStack: (provenance.policyStacks as Record<string, unknown>).fifo });
  });
});
