import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { ciHalfWidth, meanOf, round6 } from '../../src/report/interval.js';
import type { CellResult, CellSummary } from '../../src/sweep/cell-store.js';
import { allCells, cellParameters, type SweepGrid } from '../../src/sweep/grid.js';
import { SWEEP_METRICS } from '../../src/sweep/sweep-metrics.js';
import { sweepCsv } from '../../src/sweep/sweep-csv.js';
import { sweepSummaryCsv, sweepSummaryRows } from '../../src/sweep/sweep-summary.js';
import { uniformSummary } from '../helpers.js';

const grid: SweepGrid = {
  policies: ['fifo', 'drf'],
  seeds: [1, 2, 3],
  parameters: [
    { path: 'cluster.nodes[0].count', values: [4, 8] },
    { path: 'sim.horizon', values: ['1d', '2d'] },
  ],
};

/** A summary whose makespan encodes the cell and whose other headline metrics are 1. */
function summaryOf(makespanS: number): CellSummary {
  const { perf: _perf, ...summary } = uniformSummary(1, { scenario: 's', policy: 'p', seed: 0, makespanS });
  return summary;
}

/** Makespan of a cell: nodes x 10 + (horizon 2d: 1000) + (drf: 5) + seed squared. */
function makespanOf(nodes: number, horizon: string, policy: string, seed: number): number {
  return nodes * 10 + (horizon === '2d' ? 1000 : 0) + (policy === 'drf' ? 5 : 0) + seed * seed;
}

const cells: CellResult[] = allCells(grid).map((cell) => ({
  id: cell.id,
  index: cell.index,
  policy: cell.policy,
  seed: cell.seed,
  parameters: cellParameters(grid, cell),
  summary: summaryOf(makespanOf(cell.values[0] as number, cell.values[1] as string, cell.policy, cell.seed)),
}));

describe('sweep.csv', () => {
  it('has one row per cell in grid order whatever order the cells come in, with policy, seed, parameters and headline metrics', () => {
    const text = sweepCsv(grid, [...cells].reverse());
    expect(text).toBe(sweepCsv(grid, cells));
    const rows = parse(text, { columns: true }) as Record<string, string>[];
    expect(Object.keys(rows[0]!)).toEqual(['policy', 'seed', 'cluster.nodes[0].count', 'sim.horizon', ...SWEEP_METRICS]);
    expect(rows).toHaveLength(24);
    expect(rows[4]).toMatchObject({ policy: 'drf', seed: '2', 'cluster.nodes[0].count': '4', 'sim.horizon': '1d', makespanS: String(40 + 5 + 4) });
  });
});

describe('sweep summary', () => {
  it('gives per value and policy the mean and 95% CI over seeds of the per-seed mean over the other parameters', () => {
    const rows = sweepSummaryRows(grid, cells);
    expect(rows).toHaveLength((2 + 2) * 2 * SWEEP_METRICS.length);
    const row = rows.find((r) => r.paramPath === 'cluster.nodes[0].count' && r.value === 8 && r.policy === 'drf' && r.metric === 'makespanS')!;
    const perSeed = grid.seeds.map((seed) => (makespanOf(8, '1d', 'drf', seed) + makespanOf(8, '2d', 'drf', seed)) / 2);
    const mean = meanOf(perSeed);
    expect(row).toEqual({ policy: 'drf', paramPath: 'cluster.nodes[0].count', value: 8, metric: 'makespanS', n: 3, mean: round6(mean), ci95: round6(ciHalfWidth(perSeed, mean)) });
    // nodes 8 -> 80, the horizons 0 and 1000 -> 500, drf 5, seeds 1, 4, 9 -> 14/3.
    expect(row.mean).toBe(round6(585 + 14 / 3));
    const constant = rows.find((r) => r.paramPath === 'sim.horizon' && r.value === '2d' && r.policy === 'fifo' && r.metric === 'ettr')!;
    expect(constant).toMatchObject({ n: 3, mean: 1, ci95: 0 });
  });

  it('leaves out what is absent: one seed has no interval, a value without cells has no row', () => {
    const firstSeed = cells.filter((cell) => cell.seed === 1 && cell.parameters['sim.horizon'] === '1d');
    const rows = sweepSummaryRows(grid, firstSeed);
    expect(rows.every((r) => r.n === 1 && r.ci95 === null)).toBe(true);
    expect(rows.some((r) => r.value === '2d')).toBe(false);
    const csv = parse(sweepSummaryCsv(rows), { columns: true }) as Record<string, string>[];
    expect(csv[0]).toEqual({ paramPath: 'cluster.nodes[0].count', value: '4', policy: 'fifo', metric: 'jobs.completed', n: '1', mean: '1', ci95: '' });
  });

  it('aggregates per policy alone when nothing is swept', () => {
    const plain: SweepGrid = { policies: ['fifo'], seeds: [1, 2], parameters: [] };
    const plainCells = allCells(plain).map((cell) => ({ id: cell.id, index: cell.index, policy: cell.policy, seed: cell.seed, parameters: {}, summary: summaryOf(cell.seed * 100) }));
    const makespan = sweepSummaryRows(plain, plainCells).find((r) => r.metric === 'makespanS')!;
    expect(makespan).toMatchObject({ paramPath: '', value: '', n: 2, mean: 150 });
  });
});
