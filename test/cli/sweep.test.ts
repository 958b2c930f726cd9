import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { CLI, ROOT, dlsim, folderWith } from '../cli-run.js';

const TINY = join(ROOT, 'scenarios/sweeps/tiny.yaml');

/** A scratch folder with a sweep file s.yaml over the tiny scenario: 2 cluster sizes x 2 fault scales x 2 policies x 3 seeds = 24 cells. */
function sweepFolder(): { dir: string; file: string } {
  const dir = folderWith({
    's.yaml': `scenario: ${TINY}\npolicies: [fifo, drf]\nseeds: 3\nparameters:\n  cluster.nodes[0].count: [4, 6]\n  faults.scale: {values: [0, 40]}\n`,
  });
  return { dir, file: join(dir, 's.yaml') };
}

/** Files whose names mark them as temporary, anywhere in a sweep folder. */
function temporaries(out: string): string[] {
  return [...readdirSync(out), ...(existsSync(join(out, 'cells')) ? readdirSync(join(out, 'cells')) : [])].filter((name) => name.endsWith('.tmp'));
}

/**
 * Spawns a sweep and kills it with `signal` once `cells` cell files exist; resolves when it has
 * ended. SIGTERM goes to the program, which passes it on to the child running the command; SIGKILL,
 * which no process can pass on, to the process group, as a supervisor stopping a job sends it.
 */
async function killAfter(file: string, out: string, cells: number, signal: NodeJS.Signals): Promise<number> {
  const child = spawn(process.execPath, [CLI, 'sweep', file, '--out', out, '--workers', '1'], { cwd: ROOT, stdio: 'ignore', detached: signal === 'SIGKILL' });
  const ended = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  let killed = false;
  while (!killed) {
    const done = existsSync(join(out, 'cells')) ? readdirSync(join(out, 'cells')).filter((n) => n.endsWith('.json')).length : 0;
    if (done >= cells || child.exitCode !== null) {
      if (signal === 'SIGKILL') {
        try {
          process.kill(-child.pid!, signal);
        } catch {
          // The group ended already (the sweep finished first): the checks below say so.
        }
      } else child.kill(signal);
      killed = true;
    } else {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
  await ended;
  return readdirSync(join(out, 'cells')).filter((n) => n.endsWith('.json')).length;
}

describe('dlsim sweep', () => {
  const { dir, file } = sweepFolder();
  const whole = join(dir, 'whole');
  const first = dlsim('sweep', file, '--out', whole, '--workers', '1');

  it('runs every cell, writes one file per cell, sweep.json, sweep.csv and sweep-summary.csv, and prints a short table', () => {
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^sweep +.*s\.yaml: scenario tiny, 2 policies x 3 seeds x 4 parameter combinations = 24 cells$/m);
    expect(first.stdout).toMatch(/^cells run +24$/m);
    expect(first.stdout).toMatch(/^cells skipped +0$/m);
    expect(first.stdout).toContain(join(whole, 'sweep.csv'));
    expect(readdirSync(join(whole, 'cells'))).toHaveLength(24);
    const csv = readFileSync(join(whole, 'sweep.csv'), 'utf8').trim().split('\n');
    expect(csv).toHaveLength(25);
    expect(csv[0]).toMatch(/^policy,seed,cluster\.nodes\[0\]\.count,faults\.scale,jobs\.completed,/);
    expect(csv[1]).toMatch(/^fifo,1,4,0,/);
    const cell = JSON.parse(readFileSync(join(whole, 'cells', '000004-drf-seed2.json'), 'utf8'));
    expect(cell).toMatchObject({ id: '000004-drf-seed2', policy: 'drf', seed: 2, parameters: { 'cluster.nodes[0].count': 4, 'faults.scale': 0 } });
    expect(cell.summary.perf).toBeUndefined();
    const record = JSON.parse(readFileSync(join(whole, 'sweep.json'), 'utf8'));
    expect(record).toMatchObject({ format: 'dlsim-sweep/1', cells: 24, shard: null, grid: { policies: ['fifo', 'drf'], seeds: [1, 2, 3] } });
    expect(readFileSync(join(whole, 'sweep-summary.csv'), 'utf8')).toMatch(/^paramPath,value,policy,metric,n,mean,ci95\ncluster\.nodes\[0\]\.count,4,fifo,jobs\.completed,3,/);
    // The report: the three headline metrics against each of the two parameters, a line per policy.
    expect(first.stdout).toContain(join(whole, 'report.html'));
    const report = readFileSync(join(whole, 'report.html'), 'utf8');
    expect(report.match(/<svg data-chart="sweep"/g)).toHaveLength(6);
    expect(report).toContain('data-param="faults.scale" data-metric="jctS.mean"');
    expect(report.match(/<path data-series="drf"/g)).toHaveLength(6);
    expect(report).toContain('24 of 24 cells');
  });

  it('gives a byte-identical sweep.csv and summary with two worker threads', () => {
    const two = join(dir, 'two');
    const ran = dlsim('sweep', file, '--out', two, '--workers', '2');
    expect(ran.code).toBe(0);
    expect(readFileSync(join(two, 'sweep.csv'), 'utf8')).toBe(readFileSync(join(whole, 'sweep.csv'), 'utf8'));
    expect(readFileSync(join(two, 'sweep-summary.csv'), 'utf8')).toBe(readFileSync(join(whole, 'sweep-summary.csv'), 'utf8'));
    expect(readFileSync(join(two, 'report.html'), 'utf8')).toBe(readFileSync(join(whole, 'report.html'), 'utf8'));
    // dlsim report draws it again from the folder, byte for byte.
    const drawn = readFileSync(join(two, 'report.html'), 'utf8');
    rmSync(join(two, 'report.html'));
    const report = dlsim('report', two);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout.trim()).toBe(join(two, 'report.html'));
    expect(readFileSync(join(two, 'report.html'), 'utf8')).toBe(drawn);
  });

  it('refuses a folder holding cells without --resume, and another sweep\'s cells even with it', () => {
    const again = dlsim('sweep', file, '--out', whole);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(`dlsim: --out: ${whole} already holds 24 cells of this sweep: add --resume to finish it, or use another --out\n`);
    const other = join(dir, 'other.yaml');
    writeFileSync(other, `scenario: ${TINY}\npolicies: [fifo]\nseeds: 1\n`);
    const foreign = dlsim('sweep', other, '--out', whole, '--resume');
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toBe(`dlsim: --out: ${whole} holds another sweep's cells (its policies differ (fifo, drf, not fifo)): use another --out\n`);
  });

  it('resumes a sweep whose cells were partly lost: runs only those, and gives the same sweep.csv', () => {
    const resumed = join(dir, 'resumed');
    expect(dlsim('sweep', file, '--out', resumed, '--workers', '1').code).toBe(0);
    for (const name of readdirSync(join(resumed, 'cells')).filter((_, i) => i % 3 === 1)) rmSync(join(resumed, 'cells', name));
    rmSync(join(resumed, 'sweep.csv'));
    const ran = dlsim('sweep', file, '--out', resumed, '--resume', '--workers', '2');
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/^cells run +8$/m);
    expect(ran.stdout).toMatch(/^cells skipped +16 \(finished before\)$/m);
    expect(readFileSync(join(resumed, 'sweep.csv'), 'utf8')).toBe(readFileSync(join(whole, 'sweep.csv'), 'utf8'));
  });

  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    it(`resumes a sweep killed halfway (${signal}): nothing lost or duplicated, no temporary file, the same sweep.csv`, async () => {
      const killed = join(dir, `killed-${signal}`);
      const done = await killAfter(file, killed, 8, signal);
      expect(done).toBeGreaterThanOrEqual(8);
      expect(done).toBeLessThan(24);
      expect(existsSync(join(killed, 'sweep.csv'))).toBe(false);
      if (signal === 'SIGTERM') expect(temporaries(killed)).toEqual([]);
      const ran = dlsim('sweep', file, '--out', killed, '--resume', '--workers', '1');
      expect(ran.code).toBe(0);
      expect(ran.stdout).toMatch(new RegExp(`^cells run +${24 - done}$`, 'm'));
      expect(temporaries(killed)).toEqual([]);
      expect(readdirSync(join(killed, 'cells'))).toHaveLength(24);
      expect(readFileSync(join(killed, 'sweep.csv'), 'utf8')).toBe(readFileSync(join(whole, 'sweep.csv'), 'utf8'));
    });
  }

  it('reports a bad sweep file in one line naming the file, line and YAML path, with exit 1', () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, `scenario: ${TINY}\npolicies: [fifo]\nparameters:\n  cluster.nodez: [1, 2]\n`);
    const ran = dlsim('sweep', bad, '--out', join(dir, 'bad-out'));
    expect(ran.code).toBe(1);
    expect(ran.stderr).toBe(`dlsim: ${bad}:4: parameters."cluster.nodez": value 1: cluster: unknown key "nodez"\n`);
    expect(ran.stdout).toBe('');
    expect(existsSync(join(dir, 'bad-out'))).toBe(false);
    const shard = dlsim('sweep', file, '--shard', '3/3');
    expect(shard.code).toBe(1);
    expect(shard.stderr).toBe('dlsim: --shard: shard index 3 is out of range: expected 0 to 2\n');
  });

  it('writes a Kubernetes Job for N shards instead of running, and needs N', () => {
    const k8s = join(dir, 'k8s');
    const ran = dlsim('sweep', file, '--emit-k8s-job', '--shards', '4', '--parallelism', '2', '--image', 'reg/dlsim:1', '--pvc', 'res', '--container-file', 'sweeps/s.yaml', '--out', k8s);
    expect(ran.code).toBe(0);
    expect(existsSync(join(k8s, 'cells'))).toBe(false);
    const job = parse(readFileSync(join(k8s, 'k8s-job.yaml'), 'utf8'));
    expect(job).toMatchObject({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'dlsim-sweep-s' }, spec: { completionMode: 'Indexed', completions: 4, parallelism: 2 } });
    const container = job.spec.template.spec.containers[0];
    expect(container.image).toBe('reg/dlsim:1');
    expect(container.command[2]).toContain('--shard "${JOB_COMPLETION_INDEX:?set by an Indexed Job}/4" --out "/results/shard-${JOB_COMPLETION_INDEX}"');
    expect(container.command[3]).toBe('sweeps/s.yaml');
    expect(job.spec.template.spec.volumes[0].persistentVolumeClaim.claimName).toBe('res');
    const noCount = dlsim('sweep', file, '--emit-k8s-job', '--out', k8s);
    expect(noCount.stderr).toBe('dlsim: --emit-k8s-job: give the number of shards: --shards N (one pod per shard)\n');
    const fromShard = dlsim('sweep', file, '--emit-k8s-job', '--shard', '0/5', '--out', k8s, '--container-file', 'x.yaml');
    expect(fromShard.code).toBe(0);
    expect(parse(readFileSync(join(k8s, 'k8s-job.yaml'), 'utf8')).spec.completions).toBe(5);
    const stray = dlsim('sweep', file, '--pvc', 'res');
    expect(stray.stderr).toBe('dlsim: --pvc: applies only with --emit-k8s-job\n');
  });
});
