import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SimError } from '../../src/errors.js';
import type { RunSummary } from '../../src/metrics/summary.js';
import { cellPath, parseCell, removeLeftTemporaries } from '../../src/sweep/cell-store.js';
import { cellAt, type SweepGrid } from '../../src/sweep/grid.js';
import { runCells } from '../../src/sweep/run-cells.js';
import { ROOT, folderWith, rejection } from '../cli-run.js';

const QUICKSTART = join(ROOT, 'scenarios/quickstart.yaml');

describe('runCells', () => {
  it('hands over each summary in order with one worker, then raises a failing cell as a user error naming it', async () => {
    const seen: [number, string][] = [];
    const jobs = [
      { label: 'cell 000000-fifo-seed1', request: { file: QUICKSTART, policy: 'fifo', seed: 1, sets: [] } },
      { label: 'cell 000001-drf-seed1 (cluster.nodes[0].count=2)', request: { file: QUICKSTART, policy: 'drf', seed: 1, sets: ['cluster.nodes[0].count=2'] } },
      { label: 'cell 000002-fifo-seed1 (x=1)', request: { file: QUICKSTART, policy: 'fifo', seed: 1, sets: ['cluster.nodes[0].gpus=-1'] } },
      { label: 'cell 000003-fifo-seed2', request: { file: QUICKSTART, policy: 'fifo', seed: 2, sets: [] } },
    ];
    const error = await rejection(runCells(jobs, 1, (i: number, summary: RunSummary) => seen.push([i, summary.policy])));
    expect(seen).toEqual([[0, 'fifo'], [1, 'drf']]);
    expect(error).toBeInstanceOf(SimError);
    expect((error as Error).message).toMatch(/^cell 000002-fifo-seed1 \(x=1\): --set cluster\.nodes\[0\]\.gpus=-1: cluster\.nodes\[0\]\.gpus: expected a non-negative integer/);
  });
});

describe('cell files', () => {
  const grid: SweepGrid = { policies: ['fifo'], seeds: [1], parameters: [{ path: 'a', values: [1, 2] }] };

  it('are checked against the grid cell they stand for', () => {
    const cell = cellAt(grid, 1);
    const good = JSON.stringify({ id: cell.id, index: 1, policy: 'fifo', seed: 1, parameters: { a: 2 }, summary: {} });
    expect(parseCell('c.json', good, grid, cell).parameters).toEqual({ a: 2 });
    expect(() => parseCell('c.json', good.replace('"a":2', '"a":1'), grid, cell)).toThrow("c.json: is not this sweep's cell (its policy, seed or parameters differ from the grid's): remove it to run the cell again");
    expect(() => parseCell('c.json', '{"id": ', grid, cell)).toThrow('c.json: is not JSON: remove it to run the cell again');
  });

  it('lose the temporary files a killed run left, and nothing else', () => {
    const dir = folderWith({ '.sweep.json.123.tmp': '{', 'notes.txt': 'mine' });
    mkdirSync(join(dir, 'cells'));
    writeFileSync(join(dir, 'cells', '.000000-fifo-seed1.json.4567.tmp'), '{');
    writeFileSync(cellPath(dir, '000001-fifo-seed1'), '{}');
    removeLeftTemporaries(dir);
    expect(readdirSync(dir).sort()).toEqual(['cells', 'notes.txt']);
    expect(readdirSync(join(dir, 'cells'))).toEqual(['000001-fifo-seed1.json']);
  });
});

describe('sweepFolderRows', () => {
  it('reads a sweep folder back into its aggregate rows', async () => {
    const { planSweep } = await import('../../src/sweep/plan.js');
    const { runSweep } = await import('../../src/sweep/run-sweep.js');
    const { sweepFolderRows } = await import('../../src/sweep/folder-rows.js');
    const dir = folderWith({ 's.yaml': `scenario: ${QUICKSTART}\npolicies: [fifo, sjf]\nseeds: 2\nparameters:\n  cluster.nodes[0].count: [3, 4]\n` });
    const out = join(dir, 'out');
    const outcome = await runSweep(await planSweep(join(dir, 's.yaml')), { out, workers: 1, resume: false, shard: null });
    expect(outcome).toMatchObject({ cells: 8, run: 8, skipped: 0 });
    const { record, rows } = sweepFolderRows(out);
    expect(record.grid.policies).toEqual(['fifo', 'sjf']);
    const completed = rows.filter((row) => row.metric === 'jobs.completed');
    expect(completed.map((row) => [row.value, row.policy, row.n, row.mean])).toEqual([
      [3, 'fifo', 2, 10],
      [3, 'sjf', 2, 10],
      [4, 'fifo', 2, 10],
      [4, 'sjf', 2, 10],
    ]);
  });
});
