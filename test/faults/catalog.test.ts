import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import {
  exitClassOf,
  expectedDownShare,
  meanRepairS,
  type FaultCatalog,
  type FaultType,
  catalogNames,
  loadCatalog,
  loadCatalogFile,
  nodeCheckFindsSlowdown,
  scaledCatalog,
  totalRatePerGpuDay,
} from '../../src/faults/catalog.js';
import { infiniteHbdTypes } from '../../src/faults/trace-replay.js';
import { faultType } from '../helpers.js';
import { runNodeCheck } from '../../src/policies/recovery/node-check.js';

/** The error `run` throws (it must throw a ConfigError). */
function configErrorOf(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError, nothing was thrown');
}

function typeNamed(catalog: FaultCatalog, name: string): FaultType {
  const type = catalog.types.find((t) => t.name === name);
  if (!type) throw new Error(`no fault type ${name} in ${catalog.name}`);
  return type;
}

const dir = mkdtempSync(join(tmpdir(), 'dlsim-catalog-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes `text` to a fresh file in the temporary folder and returns its path. */
function writeCatalog(fileName: string, text: string): string {
  const file = join(dir, fileName);
  writeFileSync(file, text);
  return file;
}

/** Llama 3, Table 5 (REFERENCE §7): published interruptions per cause over 54 days on 16,384 GPUs. */
const LLAMA3_COUNTS: readonly (readonly [string, number])[] = [
  ['faulty-gpu', 148],
  ['gpu-hbm3-memory', 72],
  ['software-bug', 54],
  ['network-switch-cable', 35],
  ['host-maintenance', 32],
  ['gpu-sram-memory', 19],
  ['gpu-system-processor', 17],
  ['nic', 7],
  ['nccl-watchdog-timeout', 7],
  ['silent-data-corruption', 6],
  ['gpu-thermal', 6],
  ['other-host-hardware', 14],
  ['dependency', 2],
];
const LLAMA3_GPU_DAYS = 16_384 * 54;
const LLAMA3_NODE_DAYS = (16_384 / 8) * 54;

describe('shipped catalogs', () => {
  it('are ant-2023, llama3-2024 and none', () => {
    expect(catalogNames()).toEqual(['ant-2023', 'llama3-2024', 'none']);
  });

  it.each(catalogNames())('%s loads, names itself, cites sources and keeps the per-type invariants', (name) => {
    const catalog = loadCatalog(name);
    expect(catalog.name).toBe(name);
    expect(catalog.description).not.toBe('');
    expect(catalog.source).not.toBe('');
    expect(new Set(catalog.types.map((t) => t.name)).size).toBe(catalog.types.length);
    for (const type of catalog.types) {
      expect(type.name).toMatch(/^[a-z0-9-]+$/);
      expect(type.description).not.toBe('');
      expect(type.ratePerGpuDay).toBeGreaterThanOrEqual(0);
      expect(type.ratePerNodeDay).toBeGreaterThanOrEqual(0);
      expect(type.ratePerGpuDay > 0 && type.ratePerNodeDay > 0).toBe(false);
      const takesHardwareDown = !['crash', 'hang', 'silent-corruption'].includes(type.effect.kind);
      expect(type.repair.kind !== 'none', type.name).toBe(takesHardwareDown);
    }
  });

  it('none has no fault types', () => {
    expect(loadCatalog('none').types).toEqual([]);
    expect(totalRatePerGpuDay(loadCatalog('none'), 8)).toBe(0);
  });

  it('an unknown catalog name is a ConfigError listing the known ones', () => {
    const error = configErrorOf(() => loadCatalog('ant-2022'));
    expect(error.message).toBe('unknown fault catalog "ant-2022"; known catalogs: ant-2023, llama3-2024, none');
  });
});

describe('ant-2023', () => {
  const ant = loadCatalog('ant-2023');

  it('sums to 0.27% per GPU-day at 8 GPUs per node, so a 1,000-GPU job fails within a day with probability ~93%', () => {
    const p = totalRatePerGpuDay(ant, 8);
    expect(p).toBeCloseTo(0.0027, 15);
    expect(1 - (1 - p) ** 1000).toBeCloseTo(0.933, 3);
    // Monthly: ~8% of cards (the seed's own figure).
    expect(1 - (1 - p) ** 30).toBeCloseTo(0.078, 3);
  });

  it('names every Xid the reference lists', () => {
    const xids = new Set(ant.types.map((t) => t.xid));
    for (const xid of [13, 31, 43, 45, 48, 63, 64, 74, 79, 92, 94, 95, 119, 120]) expect(xids.has(xid), `Xid ${xid}`).toBe(true);
  });

  it('fires every entry except Xid 45, which only follows another fault', () => {
    for (const type of ant.types) {
      expect(type.ratePerGpuDay > 0 || type.ratePerNodeDay > 0, type.name).toBe(type.xid !== 45);
    }
  });

  it.each([
    ['xid-13-graphics-engine-exception', 'job', 'crash', 'software'],
    ['xid-31-mmu-fault', 'job', 'crash', 'software'],
    ['xid-43-gpu-stopped-processing', 'job', 'crash', 'software'],
    ['xid-48-double-bit-ecc', 'gpu', 'gpu-down', 'hardware'],
    ['xid-63-row-remap-pending', 'gpu', 'gpu-down', 'hardware'],
    ['xid-64-row-remap-failure', 'gpu', 'gpu-down', 'hardware'],
    ['xid-74-nvlink-error', 'gpu', 'gpu-down', 'hardware'],
    ['xid-79-gpu-fell-off-bus', 'node', 'node-down', 'hardware'],
    ['xid-92-excess-single-bit-ecc', 'gpu', 'slowdown', 'hardware'],
    ['xid-94-contained-ecc', 'job', 'crash', 'hardware'],
    ['xid-95-uncontained-ecc', 'gpu', 'gpu-down', 'hardware'],
    ['xid-119-gsp-timeout', 'gpu', 'gpu-down', 'hardware'],
    ['xid-120-gsp-error', 'node', 'node-down', 'hardware'],
    ['nccl-timeout', 'job', 'hang', 'software'],
    ['nccl-error', 'job', 'crash', 'software'],
    ['link-down', 'link', 'network-down', 'network'],
    ['nic-down', 'link', 'network-down', 'network'],
    ['host-hardware-failure', 'node', 'node-down', 'hardware'],
    ['gpu-thermal-slowdown', 'gpu', 'slowdown', 'hardware'],
    ['pcie-width-low', 'gpu', 'slowdown', 'hardware'],
    ['silent-data-corruption', 'gpu', 'silent-corruption', 'hardware'],
    ['software-bug', 'job', 'crash', 'software'],
  ])('%s: scope %s, effect %s, category %s', (name, scope, effect, category) => {
    const type = typeNamed(ant, name);
    expect([type.scope, type.effect.kind, type.category]).toEqual([scope, effect, category]);
  });

  it('thermal throttles to half speed; GPU resets take 10 minutes', () => {
    expect(typeNamed(ant, 'gpu-thermal-slowdown').effect).toEqual({ kind: 'slowdown', factor: 0.5 });
    expect(typeNamed(ant, 'xid-63-row-remap-pending').repair).toEqual({ kind: 'fixed', seconds: 600 });
  });
});

describe('llama3-2024', () => {
  const llama = loadCatalog('llama3-2024');

  it('sums to 419 interruptions over 16,384 GPUs x 54 days (~4.7e-4 per GPU-day)', () => {
    const total = totalRatePerGpuDay(llama, 8);
    expect(total).toBeCloseTo(4.7e-4, 5);
    expect(total * LLAMA3_GPU_DAYS).toBeCloseTo(419, 3);
  });

  it('has exactly the published causes', () => {
    expect(llama.types.map((t) => t.name).sort()).toEqual(LLAMA3_COUNTS.map(([name]) => name).sort());
  });

  it.each(LLAMA3_COUNTS)('%s: rate x exposure gives back the published count %i', (name, count) => {
    const type = typeNamed(llama, name);
    const expected = type.ratePerGpuDay * LLAMA3_GPU_DAYS + type.ratePerNodeDay * LLAMA3_NODE_DAYS;
    expect(Math.abs(expected - count) / count).toBeLessThan(1e-5);
  });

  it('maps causes onto effects as the reference says', () => {
    const effects = Object.fromEntries(llama.types.map((t) => [t.name, t.effect.kind]));
    expect(effects).toEqual({
      'faulty-gpu': 'gpu-down',
      'gpu-hbm3-memory': 'gpu-down',
      'software-bug': 'crash',
      'network-switch-cable': 'network-down',
      'host-maintenance': 'node-down',
      'gpu-sram-memory': 'gpu-down',
      'gpu-system-processor': 'gpu-down',
      nic: 'network-down',
      'nccl-watchdog-timeout': 'hang',
      'silent-data-corruption': 'silent-corruption',
      'gpu-thermal': 'slowdown',
      'other-host-hardware': 'node-down',
      dependency: 'crash',
    });
  });
});

describe('scaledCatalog', () => {
  const ant = loadCatalog('ant-2023');

  it('scale multiplies every rate and leaves the input alone', () => {
    const scaled = scaledCatalog(ant, 2.5, {});
    ant.types.forEach((type, i) => {
      expect(scaled.types[i]!.ratePerGpuDay).toBeCloseTo(type.ratePerGpuDay * 2.5, 15);
      expect(scaled.types[i]!.ratePerNodeDay).toBeCloseTo(type.ratePerNodeDay * 2.5, 15);
      expect({ ...scaled.types[i]!, ratePerGpuDay: 0, ratePerNodeDay: 0 }).toEqual({ ...type, ratePerGpuDay: 0, ratePerNodeDay: 0 });
    });
    expect(totalRatePerGpuDay(scaled, 8)).toBeCloseTo(0.00675, 15);
    expect(totalRatePerGpuDay(ant, 8)).toBeCloseTo(0.0027, 15);
    expect(totalRatePerGpuDay(scaledCatalog(ant, 0, {}), 8)).toBe(0);
  });

  it('overrides replace fields of the named entry only, and are scaled too', () => {
    const scaled = scaledCatalog(ant, 2, {
      'xid-79-gpu-fell-off-bus': { ratePerGpuDay: 0.001, repair: { kind: 'fixed', seconds: 3600 } },
    });
    const xid79 = typeNamed(scaled, 'xid-79-gpu-fell-off-bus');
    expect(xid79.ratePerGpuDay).toBeCloseTo(0.002, 15);
    expect(xid79.repair).toEqual({ kind: 'fixed', seconds: 3600 });
    expect(xid79.effect).toEqual({ kind: 'node-down' });
    expect(typeNamed(scaled, 'xid-74-nvlink-error')).toEqual({ ...typeNamed(ant, 'xid-74-nvlink-error'), ratePerGpuDay: 0.000382 * 2 });
  });

  it('a rate override moves the rate to its basis; effects and repairs accept a bare kind and durations with units', () => {
    const scaled = scaledCatalog(ant, 1, {
      'xid-79-gpu-fell-off-bus': { ratePerNodeDay: 0.01 },
      'link-down': { ratePerGpuDay: 0.0001 },
      'xid-95-uncontained-ecc': { scope: 'job', effect: 'crash', repair: 'none', foundByNodeCheck: false },
      'xid-63-row-remap-pending': { repair: { kind: 'lognormal', medianS: '2h', sigma: 1 } },
      'pcie-width-low': { effect: { kind: 'slowdown', factor: 0.25 } },
    });
    expect(typeNamed(scaled, 'xid-79-gpu-fell-off-bus')).toMatchObject({ ratePerGpuDay: 0, ratePerNodeDay: 0.01 });
    expect(typeNamed(scaled, 'link-down')).toMatchObject({ ratePerGpuDay: 0.0001, ratePerNodeDay: 0 });
    expect(typeNamed(scaled, 'xid-95-uncontained-ecc')).toMatchObject({ scope: 'job', effect: { kind: 'crash' }, repair: { kind: 'none' }, foundByNodeCheck: false });
    expect(typeNamed(scaled, 'xid-63-row-remap-pending').repair).toEqual({ kind: 'lognormal', medianS: 7200, sigma: 1 });
    expect(typeNamed(scaled, 'pcie-width-low').effect).toEqual({ kind: 'slowdown', factor: 0.25 });
  });

  it('exit classes: hardware for a lost GPU, node or network, unknown otherwise, unless an entry or override says', () => {
    expect(exitClassOf(typeNamed(ant, 'xid-79-gpu-fell-off-bus'))).toBe('hardware');
    expect(exitClassOf(typeNamed(ant, 'link-down'))).toBe('hardware');
    expect(exitClassOf(typeNamed(ant, 'xid-31-mmu-fault'))).toBe('unknown');
    expect(exitClassOf(typeNamed(ant, 'software-bug'))).toBe('fatal');
    const scaled = scaledCatalog(ant, 1, { 'nccl-error': { exit: 'killed' } });
    expect(exitClassOf(typeNamed(scaled, 'nccl-error'))).toBe('killed');
    const error = configErrorOf(() => scaledCatalog(ant, 1, { 'nccl-error': { exit: 'oops' } as never }));
    expect(error.message).toContain('nccl-error.exit: expected one of hardware, fatal, killed, oom, unknown');
  });

  it('an unknown name is a ConfigError naming it and listing the known names', () => {
    const error = configErrorOf(() => scaledCatalog(ant, 1, { 'xid-99-made-up': { ratePerGpuDay: 1 } }));
    expect(error.message).toContain('unknown fault type "xid-99-made-up"');
    for (const type of ant.types) expect(error.message).toContain(type.name);
  });

  it.each([
    [{ ratePerGpuDay: -1 }, 'xid-79-gpu-fell-off-bus.ratePerGpuDay', 'expected a rate ≥ 0 (faults per day)'],
    [{ ratePerGpuDay: 1, ratePerNodeDay: 1 }, 'xid-79-gpu-fell-off-bus.ratePerNodeDay', 'give ratePerGpuDay or ratePerNodeDay, not both'],
    [{ repair: { kind: 'fixed' } }, 'xid-79-gpu-fell-off-bus.repair.seconds', 'required'],
    [{ repair: { kind: 'weekly' } }, 'xid-79-gpu-fell-off-bus.repair.kind', 'expected a repair kind: one of none, fixed, exponential, lognormal'],
    [{ effect: { kind: 'slowdown', factor: 1.5 } }, 'xid-79-gpu-fell-off-bus.effect.factor', 'expected a speed factor between 0 and 1 (exclusive)'],
    [{ rate: 1 }, 'xid-79-gpu-fell-off-bus', 'unknown key "rate"'],
    [{ effect: 'crash' }, 'xid-79-gpu-fell-off-bus.repair', 'effect crash takes no hardware down: expected repair none (after overrides)'],
    [{ effect: 'gpu-down' }, 'xid-79-gpu-fell-off-bus.scope', 'effect gpu-down needs scope gpu (got node) (after overrides)'],
  ])('override %j is rejected at %s', (override, where, reason) => {
    const error = configErrorOf(() => scaledCatalog(ant, 1, { 'xid-79-gpu-fell-off-bus': override }));
    expect([error.where, error.reason]).toEqual([where, reason]);
  });

  it('a negative or non-finite scale is a ConfigError', () => {
    expect(configErrorOf(() => scaledCatalog(ant, -1, {})).where).toBe('scale');
    expect(configErrorOf(() => scaledCatalog(ant, Number.NaN, {})).where).toBe('scale');
  });
});

describe('loadCatalogFile', () => {
  const entry = (name: string, rate: string): string =>
    [
      `  - name: ${name}`,
      `    ratePerGpuDay: ${rate}`,
      '    scope: job',
      '    effect: crash',
      '    foundByNodeCheck: false',
      '    repair: none',
      '    category: software',
    ].join('\n');

  it('reads a user catalog in the shipped format; the name defaults to the file name', () => {
    const file = writeCatalog('my-cluster.yaml', ['description: mine', 'types:', entry('a', '0.001'), entry('b', '0.002'), ''].join('\n'));
    const catalog = loadCatalogFile(file);
    expect(catalog.name).toBe('my-cluster');
    expect(catalog.types.map((t) => [t.name, t.ratePerGpuDay, t.ratePerNodeDay, t.xid])).toEqual([
      ['a', 0.001, 0, null],
      ['b', 0.002, 0, null],
    ]);
  });

  it('a bad value is reported as file:line: types[2].ratePerGpuDay: reason', () => {
    // Line 1 "name: bad", 2 "types:", entries of 7 lines from line 3: types[2].ratePerGpuDay is on line 3 + 14 + 1.
    const file = writeCatalog('bad.yaml', ['name: bad', 'types:', entry('a', '0.001'), entry('b', '0.001'), entry('c', '-0.5'), ''].join('\n'));
    const error = configErrorOf(() => loadCatalogFile(file));
    expect(error.message).toBe(`${file}:18: types[2].ratePerGpuDay: expected a rate ≥ 0 (faults per day)`);
  });

  it.each([
    ['duplicate names', ['types:', entry('a', '1'), entry('a', '1')].join('\n'), ':9: types[1].name: duplicate name "a" (also types[0])'],
    ['an unknown key', ['types:', entry('a', '1'), '    flavour: sour'].join('\n'), ':9: types[0]: unknown key "flavour"'],
    ['no rate', ['types:', entry('a', '1').replace('    ratePerGpuDay: 1\n', '')].join('\n'), ':2: types[0]: needs ratePerGpuDay or ratePerNodeDay'],
    ['a missing list', 'name: x\n', ': types: required'],
    ['a YAML syntax error', 'types: [\n  {name: a\n', ':3: '],
  ])('%s is a located ConfigError', (_what, text, expected) => {
    const file = writeCatalog(`case-${expected.length}-${text.length}.yaml`, text);
    const error = configErrorOf(() => loadCatalogFile(file));
    expect(error.message.startsWith(`${file}${expected}`), error.message).toBe(true);
  });

  it('a missing file is a ConfigError naming it', () => {
    const file = join(dir, 'nope.yaml');
    expect(configErrorOf(() => loadCatalogFile(file)).message).toBe(`${file}: no such file`);
  });
});

describe('foundByNodeCheck of slowdowns agrees with the node check', () => {
  /** True when the node check flags one node at `factor` speed among three healthy ones (10 s tests). */
  const checkFlags = (factor: number): boolean =>
    runNodeCheck([10, 10, 10, 10 / factor].map((testS, nodeIndex) => ({ nodeIndex, faulty: false, testS }))).stragglers.includes(3);

  const slowdownTypes = [...catalogNames().flatMap((name) => loadCatalog(name).types), ...infiniteHbdTypes.map((m) => m.type)].filter(
    (type) => type.effect.kind === 'slowdown',
  );

  it('every shipped slowdown (catalogs and trace replay) is flagged found exactly when the check flags it', () => {
    expect(slowdownTypes.length).toBeGreaterThan(4);
    for (const type of slowdownTypes) {
      const factor = (type.effect as { factor: number }).factor;
      expect([type.name, type.foundByNodeCheck]).toEqual([type.name, checkFlags(factor)]);
    }
  });

  it('half speed takes exactly 2x the median, which DLRover\'s rule (> 2x) does not flag; below half it does', () => {
    expect(checkFlags(0.5)).toBe(false);
    expect(checkFlags(0.49)).toBe(true);
    expect(nodeCheckFindsSlowdown(0.5)).toBe(false);
    expect(nodeCheckFindsSlowdown(0.49)).toBe(true);
  });

  const slowEntry = (factor: number, found: boolean): string =>
    ['types:', '  - name: hot', '    ratePerGpuDay: 0.001', '    scope: gpu', `    effect: {kind: slowdown, factor: ${factor}}`, `    foundByNodeCheck: ${found}`, '    repair: {kind: fixed, seconds: 600}', '    category: hardware', ''].join('\n');

  it.each([
    [0.5, true, 'a slowdown to 0.5 leaves the node check at 2x the median or less, which it does not flag (> 2x): expected foundByNodeCheck false'],
    [0.3, false, 'a slowdown to 0.3 makes the node check take over 2x the median, which it flags: expected foundByNodeCheck true'],
  ])('a catalog whose slowdown to %s says found=%s is a ConfigError at its line', (factor, found, reason) => {
    const file = writeCatalog(`slow-${factor}.yaml`, slowEntry(factor, found));
    expect(configErrorOf(() => loadCatalogFile(file)).message).toBe(`${file}:6: types[0].foundByNodeCheck: ${reason}`);
  });

  it('an override of the factor takes the flag the rule gives; a flag that contradicts it is a ConfigError', () => {
    const ant = loadCatalog('ant-2023');
    expect(typeNamed(scaledCatalog(ant, 1, { 'gpu-thermal-slowdown': { effect: { kind: 'slowdown', factor: 0.3 } } }), 'gpu-thermal-slowdown').foundByNodeCheck).toBe(true);
    expect(typeNamed(scaledCatalog(ant, 1, { 'gpu-thermal-slowdown': { effect: { kind: 'slowdown', factor: 0.6 } } }), 'gpu-thermal-slowdown').foundByNodeCheck).toBe(false);
    const error = configErrorOf(() => scaledCatalog(ant, 1, { 'gpu-thermal-slowdown': { foundByNodeCheck: true } }));
    expect(error.where).toBe('gpu-thermal-slowdown.foundByNodeCheck');
  });
});

describe('expectedDownShare', () => {
  const catalogOf = (types: FaultType[]): FaultCatalog => ({ name: 'test', description: 'test', source: 'test', types });
  const nodeDown = { ...faultType('node', { kind: 'node-down' }), ratePerNodeDay: 0.1, repair: { kind: 'exponential' as const, meanS: 2 * 86_400 } };
  const gpuDown = { ...faultType('gpu', { kind: 'gpu-down' }), ratePerGpuDay: 0.05, repair: { kind: 'fixed' as const, seconds: 86_400 } };
  const crash = { ...faultType('crash', { kind: 'crash' }), ratePerGpuDay: 5 };

  it('is the share of GPUs with an outage of their node or their own active, outages lasting their mean repair time', () => {
    // 0.1 node outages a day × 2 days = 0.2 active per node; 0.05 per GPU-day × 1 day = 0.05 per GPU.
    expect(expectedDownShare(catalogOf([nodeDown]), 8)).toBeCloseTo(1 - Math.exp(-0.2), 12);
    expect(expectedDownShare(catalogOf([nodeDown, gpuDown]), 8)).toBeCloseTo(1 - Math.exp(-0.25), 12);
    // Crashes take no hardware.
    expect(expectedDownShare(catalogOf([crash]), 8)).toBe(0);
  });

  it('takes a lognormal repair at its mean, median × exp(σ²/2)', () => {
    expect(meanRepairS({ kind: 'lognormal', medianS: 100, sigma: 1 })).toBeCloseTo(100 * Math.exp(0.5), 9);
  });

  it('keeps ant-2023 mostly up at its rates and at 10x, and not at 100x', () => {
    const ant = loadCatalog('ant-2023');
    expect(expectedDownShare(ant, 8)).toBeLessThan(0.05);
    expect(expectedDownShare(scaledCatalog(ant, 10, {}), 8)).toBeLessThan(0.5);
    expect(expectedDownShare(scaledCatalog(ant, 100, {}), 8)).toBeGreaterThan(0.5);
  });
});
