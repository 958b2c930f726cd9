import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { allCells, assignment, cellAt, cellCount, cellSets, checkGridSize, resolveSeeds, valueIndexes, type SweepGrid } from '../../src/sweep/grid.js';
import { MAX_GRID_CELLS, rangeValues } from '../../src/sweep/parameter-values.js';
import { inShard, parseShard } from '../../src/sweep/shard.js';

const grid: SweepGrid = {
  policies: ['fifo', 'drf'],
  seeds: [1, 2, 3],
  parameters: [
    { path: 'cluster.nodes[0].count', values: [4, 8] },
    { path: 'faults.scale', values: [0.5, 1, 2] },
  ],
};

describe('grid expansion', () => {
  it('orders cells by parameter combination (first parameter slowest), then policy, then seed', () => {
    const cells = allCells(grid);
    expect(cells).toHaveLength(2 * 3 * 2 * 3);
    expect(cells.slice(0, 7).map((c) => [c.values, c.policy, c.seed])).toEqual([
      [[4, 0.5], 'fifo', 1],
      [[4, 0.5], 'fifo', 2],
      [[4, 0.5], 'fifo', 3],
      [[4, 0.5], 'drf', 1],
      [[4, 0.5], 'drf', 2],
      [[4, 0.5], 'drf', 3],
      [[4, 1], 'fifo', 1],
    ]);
    expect(cells[35]).toMatchObject({ index: 35, id: '000035-drf-seed3', values: [8, 2] });
  });

  it('gives every cell the --set assignments of its values, strings kept as strings', () => {
    expect(cellSets(grid, cellAt(grid, 7))).toEqual(['cluster.nodes[0].count=4', 'faults.scale=1']);
    expect(assignment('sim.horizon', '2h')).toBe('sim.horizon="2h"');
    expect(assignment('workload.synthetic.gpus', { 1: 1 })).toBe('workload.synthetic.gpus={"1":1}');
  });

  it('visits every combination of values, policies and seeds exactly once', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 4 }), { maxLength: 3 }), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 3 }), (sizes, policies, seeds) => {
        const g: SweepGrid = {
          policies: Array.from({ length: policies }, (_, i) => `p${i}`),
          seeds: Array.from({ length: seeds }, (_, i) => 10 + i),
          parameters: sizes.map((size, p) => ({ path: `x${p}`, values: Array.from({ length: size }, (_, v) => v) })),
        };
        const cells = allCells(g);
        expect(cells).toHaveLength(cellCount(g));
        const keys = new Set(cells.map((c) => JSON.stringify([c.values, c.policy, c.seed])));
        expect(keys.size).toBe(cells.length);
        for (const cell of cells) expect(valueIndexes(g, cell.index)).toEqual(cell.values);
        // Ids sort in grid order.
        expect([...cells.map((c) => c.id)].sort()).toEqual(cells.map((c) => c.id));
      }),
    );
  });

  it('refuses a grid over the bound with one line naming its sizes', () => {
    const big: SweepGrid = { policies: ['fifo', 'drf'], seeds: [1, 2, 3, 4, 5], parameters: [{ path: 'a', values: rangeValues(1, 10_001, 1) }] };
    expect(() => checkGridSize(big, 'sweep.yaml')).toThrow(ConfigError);
    expect(() => checkGridSize(big, 'sweep.yaml')).toThrow(`sweep.yaml: the grid has 100010 cells (2 policies x 5 seeds x 10001 values of a): at most ${MAX_GRID_CELLS}`);
    expect(() => checkGridSize({ ...big, seeds: [1] }, 'sweep.yaml')).not.toThrow();
  });

  it('resolves a seed count from the scenario seed, a range and a list', () => {
    expect(resolveSeeds(3, 7)).toEqual([7, 8, 9]);
    expect(resolveSeeds({ from: 1, count: 2 }, 7)).toEqual([1, 2]);
    expect(resolveSeeds([5, 2], 7)).toEqual([5, 2]);
  });
});

describe('number ranges', () => {
  it('include the end when a step lands on it, without float drift', () => {
    expect(rangeValues(32, 128, 32)).toEqual([32, 64, 96, 128]);
    expect(rangeValues(0.1, 0.5, 0.1)).toEqual([0.1, 0.2, 0.3, 0.4, 0.5]);
    expect(rangeValues(1, 2, 0.3)).toEqual([1, 1.3, 1.6, 1.9]);
    expect(rangeValues(5, 5, 1)).toEqual([5]);
  });
});

describe('shards', () => {
  it('parse I/N and refuse anything else', () => {
    expect(parseShard('2/3')).toEqual({ index: 2, count: 3 });
    expect(() => parseShard('3/3')).toThrow('--shard: shard index 3 is out of range: expected 0 to 2');
    expect(() => parseShard('0/0')).toThrow('--shard: expected a shard count N from 1');
    expect(() => parseShard('a/3')).toThrow('--shard: expected I/N');
  });

  it('split the cells into disjoint shards that cover them all', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200 }), fc.integer({ min: 1, max: 20 }), (cells, count) => {
        for (let index = 0; index < cells; index++) {
          const owners = Array.from({ length: count }, (_, i) => i).filter((i) => inShard(index, { index: i, count }));
          expect(owners).toEqual([index % count]);
        }
      }),
    );
  });
});
