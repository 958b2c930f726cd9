/** `--set path=value` assignments as a fast-check arbitrary: real scenario paths, damaged paths and nasty YAML values. */
import fc from 'fast-check';
import { parse } from 'yaml';
import { NASTY_CELLS } from './mutate.js';
import { scenarioSeeds } from './scenario-seeds.js';

/** Every path of the seed scenarios' documents, as `a.b[0].c` (and `a.b.0.c`). */
function knownPaths(): string[] {
  const paths = new Set<string>();
  const walk = (value: unknown, path: string): void => {
    if (path !== '') paths.add(path);
    if (Array.isArray(value)) {
      value.forEach((item, index) => {
        walk(item, `${path}[${index}]`);
        paths.add(`${path}.${index}`);
      });
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Object.entries(value)) walk(item, path === '' ? key : `${path}.${key}`);
    }
  };
  for (const seed of scenarioSeeds()) {
    try {
      walk(parse(seed.text), '');
    } catch {
      // A seed that does not parse adds no path.
    }
  }
  return [...paths].sort();
}

const PATHS = knownPaths();

/** Paths no scenario has, or that are not paths at all. */
const ODD_PATHS = [
  '', '.', '..', 'a..b', '[0]', 'cluster.nodes[99].count', 'cluster.nodes[-1]', 'cluster.nodes[x]', 'cluster.nodes[0][0]',
  '__proto__', 'cluster.__proto__.x', 'constructor.prototype', 'toString', 'cluster.nodes.length', 'seed.x', 'name.0',
  'workload.jobs[0].roles', 'faults.overrides.nope.ratePerGpuDay', 'faults.overrides.faulty-gpu.effect', ' seed', 'seed ',
  'séed', '😀', 'a=b', 'cluster.nodes[0]x', 'x'.repeat(300), 'a.'.repeat(200),
];

/** A value as it is typed after `=` (read as YAML). */
const VALUES = [
  '16', '0', '-1', '1.5', '1e308', '1e999', '.inf', '.nan', '~', 'null', '', ' ', '[]', '{}', '[A100]', '[A100, 7]', '{a: 1}',
  '{min: 2, max: 1}', '2h', '-2h', '1e400s', '101y', 'fifo', 'dlrover', 'ant-2023', 'none', 'crash', '{kind: fixed, seconds: 0}',
  '{kind: slowdown, factor: 0.4}', '!!binary aGk=', '!foo bar', '*alias', '&a', '&a [*a]', '"unterminated', "'", '[', '{', ']',
  '%', '@', '`', 'x: y', '- a', 'a\nb', '---', '...', '? x', '__proto__', '{__proto__: 1}', '1000001', '100001', '10000001',
  'x'.repeat(3000), ...NASTY_CELLS.slice(0, 30),
];

/** One `--set` assignment. */
export const setAssignment: fc.Arbitrary<string> = fc
  .record({
    path: fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...PATHS) }, { weight: 1, arbitrary: fc.constantFrom(...ODD_PATHS) }, { weight: 1, arbitrary: fc.string({ maxLength: 12 }) }),
    value: fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...VALUES) }, { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) }),
    equals: fc.constantFrom('=', '=', '=', '==', '', ' = '),
  })
  .map(({ path, value, equals }) => `${path}${equals}${value}`);
