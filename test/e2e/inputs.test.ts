import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dlsim, folderWith } from '../cli-run.js';


/** Runs the built CLI and returns exit code, stdout and stderr. */
/** Asserts a user error: exit 1 and exactly one stderr line matching `pattern`. */
function expectOneLineError(result: ReturnType<typeof dlsim>, pattern: RegExp): void {
  expect(result.code).toBe(1);
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
}

const CLUSTER = 'cluster:\n  nodes:\n    - { count: 4, gpus: 8, gpuType: V100, cpuCores: 96, memGiB: 512 }\n';

describe('command-line options', () => {
  it('--set does not swallow the scenario named after it', () => {
    const run = dlsim('run', '--set', 'seed=3', 'scenarios/quickstart.yaml', '--json');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect((JSON.parse(run.stdout) as { seed: number }).seed).toBe(3);
  });

  it('a number option given text quotes the text, never "NaN"', () => {
    const seed = dlsim('run', 'scenarios/quickstart.yaml', '--seed', 'abc');
    expectOneLineError(seed, /--seed: expected a non-negative integer, got "abc"/);
    expectOneLineError(dlsim('compare', 'scenarios/quickstart.yaml', '--policies', 'fifo', '--seeds', 'x'), /--seeds: .*got "x"/);
    expectOneLineError(dlsim('trace', 'generate', '--style', 'philly', '--jobs', 'many', '--out', '/tmp/never.jsonl'), /--jobs: .*got "many"/);
  });

  it('--strict takes no value but true or false', () => {
    const run = dlsim('trace', 'import', '--format', 'philly', 'traces/samples/philly/philly_jobs.csv', '--out', join(folderWith({}), 'x.jsonl'), '--strict=maybe');
    expectOneLineError(run, /--strict: expected true or false, got "maybe"/);
  });

  it('trace import --help does not call the files "[required] [default: []]"', () => {
    const help = dlsim('trace', 'import', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/files/);
    expect(help.stdout).not.toContain('[default: []]');
  });

  it('trace inspect of a file that is not native JSON Lines asks for --format', () => {
    expectOneLineError(dlsim('trace', 'inspect', 'traces/samples/philly/philly_jobs.csv'), /--format: .*philly_jobs\.csv/);
    const named = dlsim('trace', 'inspect', 'traces/samples/philly/philly_jobs.csv', '--format', 'philly', '--json');
    expect(named.code).toBe(0);
    expect((JSON.parse(named.stdout) as { stats: { jobs: number } }).stats.jobs).toBeGreaterThan(0);
  });
});

describe('results shown', () => {
  it('run shows – for JCT and queueing when no job completed', () => {
    const run = dlsim('run', 'scenarios/quickstart.yaml', '--set', 'sim.horizon=1s');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/completed\s/);
    expect(run.stdout).toMatch(/JCT\s+–\s+–\s+–\s+–/);
    expect(run.stdout).toMatch(/queueing delay\s+–/);
    expect(run.stdout).not.toMatch(/JCT\s+0\.00s/);
  });
});

describe('scenario inputs', () => {
  it('a value a YAML library would warn about is one line, not a warning block', () => {
    expectOneLineError(dlsim('run', 'scenarios/quickstart.yaml', '--set', 'seed=!!foo 3'), /--set seed=!!foo 3: /);
    const dir = folderWith({ 's.yaml': `${CLUSTER}workload:\n  jobs:\n    - { gpus: 1, duration: !!foo 1h }\n` });
    expectOneLineError(dlsim('run', join(dir, 's.yaml')), /s\.yaml:6: /);
  });

  it('a missing trace or fault file names the scenario file and YAML path', () => {
    const dir = folderWith({
      'trace.yaml': `${CLUSTER}workload:\n  trace: { format: native, files: absent.jsonl }\n`,
      'faults.yaml': `${CLUSTER}workload:\n  jobs: [{ gpus: 1, duration: 1h }]\nfaults: { trace: { file: absent.json } }\n`,
      'catalog.yaml': `${CLUSTER}workload:\n  jobs: [{ gpus: 1, duration: 1h }]\nfaults: { catalog: absent.yaml }\n`,
    });
    expectOneLineError(dlsim('run', join(dir, 'trace.yaml')), /trace\.yaml:5: workload\.trace\.files: .*absent\.jsonl: no such file/);
    expectOneLineError(dlsim('run', join(dir, 'faults.yaml')), /faults\.yaml:\d+: faults\.trace\.file: .*absent\.json: no such file/);
    expectOneLineError(dlsim('run', join(dir, 'catalog.yaml')), /catalog\.yaml:\d+: faults\.catalog: .*absent\.yaml: no such file/);
  });

  it('a __proto__ key does not pass, in the file or through --set', () => {
    const dir = folderWith({
      'rt.yaml': `recoveryTimes: { __proto__: { poll: 5m } }\n${CLUSTER}workload:\n  jobs: [{ gpus: 1, duration: 1h }]\n`,
      'ov.yaml': `${CLUSTER}workload:\n  jobs: [{ gpus: 1, duration: 1h }]\nfaults: { catalog: ant-2023, overrides: { __proto__: { ratePerGpuDay: 1 } } }\n`,
    });
    expectOneLineError(dlsim('run', join(dir, 'rt.yaml')), /rt\.yaml:1: recoveryTimes\.__proto__: .*__proto__/);
    expectOneLineError(dlsim('run', join(dir, 'ov.yaml')), /ov\.yaml:\d+: faults\.overrides\.__proto__: /);
    expectOneLineError(dlsim('run', 'scenarios/quickstart.yaml', '--set', 'recoveryTimes={__proto__: {poll: 5m}}'), /--set recoveryTimes=.*__proto__/);
    expectOneLineError(dlsim('run', 'scenarios/quickstart.yaml', '--set', '__proto__.x=1'), /--set __proto__\.x=1: /);
  });

  it('cluster.from with a file that yields no node is an error, not an empty cluster', () => {
    const dir = folderWith({
      'nodes.csv': 'sn,cpu_milli,memory_mib,gpu,model\nnode1,abc,1,1,V100\n',
      's.yaml': 'cluster:\n  from: { format: alibaba-gpu-2023, file: nodes.csv }\nworkload:\n  jobs: [{ gpus: 1, duration: 1h }]\n',
    });
    expectOneLineError(dlsim('run', join(dir, 's.yaml')), /s\.yaml:2: cluster\.from\.file: no node read/);
  });

  it('a submit time of 1e308 is an input error, never a null makespan', () => {
    const dir = folderWith({ 's.yaml': `${CLUSTER}workload:\n  jobs: [{ gpus: 1, duration: 1h, submit: 1e308 }]\n` });
    expectOneLineError(dlsim('run', join(dir, 's.yaml'), '--json'), /s\.yaml:5: workload\.jobs\[0\]\.submit: .*100 years/);
  });
});

describe('trace inputs', () => {
  it('a trace whose every row is skipped (UTF-16 without a byte-order mark) is an error naming the first reason, with no output', () => {
    const utf16 = Buffer.from('timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-01 00:00:00,60,1,60,c1\n', 'utf16le');
    const dir = folderWith({ 'philly.csv': utf16 });
    const out = join(dir, 'out.jsonl');
    const run = dlsim('trace', 'import', '--format', 'philly', join(dir, 'philly.csv'), '--out', out);
    expectOneLineError(run, /philly\.csv:1: /);
    const semicolons = folderWith({ 'philly.csv': 'timestamp;duration;num_gpus;gpu_time;cluster\n2017-10-01 00:00:00;60;1;60;c1\n' });
    expectOneLineError(dlsim('trace', 'import', '--format', 'philly', join(semicolons, 'philly.csv'), '--out', join(semicolons, 'o.jsonl')), /philly\.csv:1: /);
    const nativeDir = folderWith({ 'in.jsonl': '{"id":"a"}\n{"id":"b"}\n' });
    expectOneLineError(dlsim('trace', 'import', '--format', 'native', join(nativeDir, 'in.jsonl'), '--out', join(nativeDir, 'o.jsonl')), /no job read; the first of 2 bad rows: .*in\.jsonl:1: /);
    expect(readdirSync(nativeDir)).toEqual(['in.jsonl']);
    expect(run.stderr).not.toContain('--strict');
    expect(readdirSync(dir)).toEqual(['philly.csv']);
  });

  it('a Philly row of 6214e9 GPUs is a skipped row, not a job', () => {
    const dir = folderWith({ 'philly.csv': 'timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-01 00:00:00,60,1,60,c1\n2017-10-01 00:00:00,60,6214e9,60,c1\n' });
    const run = dlsim('trace', 'import', '--format', 'philly', join(dir, 'philly.csv'), '--out', join(dir, 'out.jsonl'));
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/imported 1 jobs/);
    expect(run.stdout).toMatch(/skipped 1 bad row: 1 x num_gpus: over 800000; first: .*philly\.csv:3: /);
  });

  it('a PAI job with an evaluator task imports and runs under every scheduler', () => {
    const dir = folderWith({
      'pai_job_table.csv': 'j1,j1,u,Terminated,0,1000\nj2,j2,u,Terminated,10,500\n',
      'pai_task_table.csv':
        'j1,worker,2,Terminated,0,1000,600,29,100,V100\nj1,evaluator,1,Terminated,0,1000,600,29,100,V100\nj2,chief,1,Terminated,10,500,400,8,,CPU\nj2,worker,2,Terminated,10,500,400,8,100,V100\n',
      's.yaml': `${CLUSTER}workload:\n  trace: { format: native, files: pai.jsonl }\n`,
    });
    const imported = dlsim('trace', 'import', '--format', 'alibaba-pai-2020', join(dir, 'pai_job_table.csv'), join(dir, 'pai_task_table.csv'), '--out', join(dir, 'pai.jsonl'));
    expect(imported.code).toBe(0);
    for (const policy of ['fifo', 'sjf', 'drf', 'tetris', 'optimus', 'edl', 'tiresias']) {
      const run = dlsim('run', join(dir, 's.yaml'), '--policy', policy, '--json');
      expect(run.stderr, policy).toBe('');
      expect((JSON.parse(run.stdout) as { jobs: { completed: number } }).jobs.completed, policy).toBe(2);
    }
  });
});
