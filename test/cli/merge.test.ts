import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, dlsim, folderWith } from '../cli-run.js';

const TINY = join(ROOT, 'scenarios/sweeps/tiny.yaml');

describe('dlsim merge', () => {
  const dir = folderWith({ 's.yaml': `scenario: ${TINY}\npolicies: [fifo, tiresias]\nseeds: 2\nparameters:\n  cluster.nodes[0].count: {from: 3, to: 5}\n` });
  const file = join(dir, 's.yaml');
  const whole = join(dir, 'whole');
  const shards = [0, 1, 2].map((i) => join(dir, `shard-${i}`));
  const runs = [dlsim('sweep', file, '--out', whole, '--workers', '1'), ...shards.map((out, i) => dlsim('sweep', file, '--shard', `${i}/3`, '--out', out, '--workers', '1'))];

  it('three local shards hold a third of the cells each, and merged equal one unsharded run byte for byte', () => {
    for (const run of runs) expect(run.code).toBe(0);
    expect(shards.map((out) => readdirSync(join(out, 'cells')).length)).toEqual([4, 4, 4]);
    expect(readFileSync(join(shards[1]!, 'sweep.csv'), 'utf8').trim().split('\n')).toHaveLength(5);
    const merged = join(dir, 'merged');
    const ran = dlsim('merge', ...shards, '--out', merged);
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/^cells +12 of 12$/m);
    expect(readFileSync(join(merged, 'sweep.csv'), 'utf8')).toBe(readFileSync(join(whole, 'sweep.csv'), 'utf8'));
    expect(readFileSync(join(merged, 'sweep-summary.csv'), 'utf8')).toBe(readFileSync(join(whole, 'sweep-summary.csv'), 'utf8'));
    expect(readFileSync(join(merged, 'report.html'), 'utf8')).toBe(readFileSync(join(whole, 'report.html'), 'utf8'));
    expect(JSON.parse(readFileSync(join(merged, 'sweep.json'), 'utf8')).shard).toBeNull();
    // The merged folder is a whole sweep: resuming it runs nothing.
    expect(dlsim('sweep', file, '--out', merged, '--resume').stdout).toMatch(/^cells run +0$/m);
  });

  it('lists missing cells as an error, or as a warning with --allow-partial', () => {
    const missing = dlsim('merge', shards[0]!, shards[2]!, '--out', join(dir, 'partial'));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(
      'dlsim: dlsim merge: 4 of 12 cells are missing (000001-fifo-seed2, 000004-fifo-seed1, 000007-tiresias-seed2, 000010-tiresias-seed1): merge every shard\'s folder, or add --allow-partial\n',
    );
    const partial = dlsim('merge', shards[0]!, shards[2]!, '--out', join(dir, 'partial'), '--allow-partial');
    expect(partial.code).toBe(0);
    expect(partial.stderr).toMatch(/^dlsim: warning: 4 of 12 cells are missing: 000001-fifo-seed2, /);
    expect(readFileSync(join(dir, 'partial', 'sweep.csv'), 'utf8').trim().split('\n')).toHaveLength(9);
  });

  it('takes a cell found twice alike once, and refuses one found twice with other contents', () => {
    const twice = dlsim('merge', ...shards, whole, '--out', join(dir, 'twice'));
    expect(twice.code).toBe(0);
    expect(twice.stdout).toMatch(/^cells +12 of 12 \(12 found twice, alike\)$/m);
    const cell = join(shards[1]!, 'cells', '000001-fifo-seed2.json');
    writeFileSync(cell, readFileSync(cell, 'utf8').replace('"makespanS": ', '"makespanS": 1'));
    const clash = dlsim('merge', ...shards, whole, '--out', join(dir, 'clash'));
    expect(clash.code).toBe(1);
    expect(clash.stderr).toBe(`dlsim: ${join(whole, 'cells', '000001-fifo-seed2.json')}: differs from ${cell}: the same cell with other results (were they made by other code?)\n`);
  });

  it('refuses folders of another sweep, naming what differs', () => {
    const other = folderWith({ 'o.yaml': `scenario: ${TINY}\npolicies: [fifo, tiresias]\nseeds: 3\n` });
    expect(dlsim('sweep', join(other, 'o.yaml'), '--out', join(other, 'out'), '--workers', '1').code).toBe(0);
    const ran = dlsim('merge', shards[0]!, join(other, 'out'), '--out', join(dir, 'mixed'));
    expect(ran.code).toBe(1);
    expect(ran.stderr).toBe(`dlsim: ${join(other, 'out')}: is not of the same sweep as ${shards[0]} (its seeds differ (1, 2, not 1, 2, 3))\n`);
  });
});

describe('dlsim merge --help', () => {
  it('names its folders without a "[default: []]"', () => {
    const help = dlsim('merge', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/dirs +sweep folders/);
    expect(help.stdout).not.toContain('[default: []]');
  });
});
