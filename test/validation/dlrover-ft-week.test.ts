import { beforeAll, describe, expect, it } from 'vitest';
import { presetNames } from '../../src/policies/presets.js';
import { loadScenario } from '../../src/scenario/load.js';
import { simulate } from '../../src/sim/simulation.js';

/** The weeks the scenario names: seeds 1-30 (`dlsim compare ... --seeds 30` from its `seed: 1`). */
const SEEDS = Array.from({ length: 30 }, (_, i) => i + 1);

/** How close a published figure must be met (the scenario header's target), as a fraction. */
const TOLERANCE = 0.08;

/** How far a known gap may move before the test calls it drift, as a fraction. */
const DRIFT = 0.03;

/** The seed's week (001; REFERENCE §1): runtime ratio, ETTR and time training stood still for GPU faults. */
const PUBLISHED = {
  manual: { runtimeRatio: 0.608, ettr: 0.329, lost: 0.3 },
  dlrover: { runtimeRatio: 0.836, ettr: 0.589, lost: 0.12 },
} as const;

/**
 * What the model gives, over SEEDS, for the figures it misses by more than TOLERANCE, measured with
 * `npx dlsim compare scenarios/validation/dlrover-ft-week.yaml --policies fifo,torch-elastic,dlrover --seeds 30`
 * (lost = 1 - runtime ratio). Re-measure with that command when the model changes on purpose.
 */
const MODEL = {
  manualEttr: 0.434,
  manualLost: 0.417,
  dlroverRuntimeRatio: 0.944,
  dlroverEttr: 0.777,
} as const;

interface WeekFigures {
  readonly runtimeRatio: number;
  readonly ettr: number;
  /** Share of the week the job did not train: in this scenario only faults stop it (and its first start-up). */
  readonly lost: number;
}

/** Mean runtime ratio, ETTR and lost time of the week-long 1,000-GPU job under a preset, over SEEDS. */
async function meanWeek(policy: string): Promise<WeekFigures> {
  let runtimeSum = 0;
  let ettrSum = 0;
  for (const seed of SEEDS) {
    const scenario = await loadScenario('scenarios/validation/dlrover-ft-week.yaml', { knownPolicies: presetNames(), policy, seed });
    const { summary } = simulate(scenario);
    runtimeSum += summary.runtimeRatio;
    ettrSum += summary.ettr;
  }
  const runtimeRatio = runtimeSum / SEEDS.length;
  return { runtimeRatio, ettr: ettrSum / SEEDS.length, lost: 1 - runtimeRatio };
}

/** A fraction as a percentage with one decimal, for test names and reports. */
function pct(fraction: number): string {
  return `${(fraction * 100).toFixed(1)}%`;
}

/** Prints a figure against its published value, in points. */
function report(label: string, model: number, published: number): void {
  const gap = (model - published) * 100;
  console.info(`dlrover-ft-week ${label}: model ${pct(model)}, published ${pct(published)}, gap ${gap >= 0 ? '+' : ''}${gap.toFixed(1)} points`);
}

/**
 * The published week (seed 001): manual recovery 60.8% runtime / 32.9% ETTR, DLRover 83.6% / 58.9%,
 * and ~30% -> ~12% of the week lost to GPU faults, each to be met within 8 points by the mean over
 * seeds 1-30. Figures the model meets are checked against the published value; figures it misses
 * (known gaps, explained in the scenario header) against what the model gives, so that both fail
 * when the model drifts.
 */
describe('scenarios/validation/dlrover-ft-week.yaml over seeds 1-30', () => {
  let manual: WeekFigures;
  let torchElastic: WeekFigures;
  let dlrover: WeekFigures;

  beforeAll(async () => {
    manual = await meanWeek('fifo');
    torchElastic = await meanWeek('torch-elastic');
    dlrover = await meanWeek('dlrover');
  }, 120_000);

  it(`manual recovery's runtime ratio is the seed's ${pct(PUBLISHED.manual.runtimeRatio)} +- ${TOLERANCE * 100} points`, () => {
    report('manual runtime ratio', manual.runtimeRatio, PUBLISHED.manual.runtimeRatio);
    expect(manual.runtimeRatio).toBeGreaterThanOrEqual(PUBLISHED.manual.runtimeRatio - TOLERANCE);
    expect(manual.runtimeRatio).toBeLessThanOrEqual(PUBLISHED.manual.runtimeRatio + TOLERANCE);
  });

  it(`DLRover's time lost to faults is the seed's ~${pct(PUBLISHED.dlrover.lost)} +- ${TOLERANCE * 100} points`, () => {
    report('DLRover time lost to faults', dlrover.lost, PUBLISHED.dlrover.lost);
    expect(dlrover.lost).toBeGreaterThanOrEqual(PUBLISHED.dlrover.lost - TOLERANCE);
    expect(dlrover.lost).toBeLessThanOrEqual(PUBLISHED.dlrover.lost + TOLERANCE);
  });

  it(`known gap: manual recovery's ETTR stays at the model's ${pct(MODEL.manualEttr)} +- ${DRIFT * 100} points, against the seed's ${pct(PUBLISHED.manual.ettr)}`, () => {
    report('manual ETTR (known gap)', manual.ettr, PUBLISHED.manual.ettr);
    expect(Math.abs(manual.ettr - PUBLISHED.manual.ettr)).toBeGreaterThan(TOLERANCE);
    expect(manual.ettr).toBeGreaterThanOrEqual(MODEL.manualEttr - DRIFT);
    expect(manual.ettr).toBeLessThanOrEqual(MODEL.manualEttr + DRIFT);
  });

  it(`known gap: manual recovery's time lost to faults stays at the model's ${pct(MODEL.manualLost)} +- ${DRIFT * 100} points, against the seed's ~${pct(PUBLISHED.manual.lost)}`, () => {
    report('manual time lost to faults (known gap)', manual.lost, PUBLISHED.manual.lost);
    expect(Math.abs(manual.lost - PUBLISHED.manual.lost)).toBeGreaterThan(TOLERANCE);
    expect(manual.lost).toBeGreaterThanOrEqual(MODEL.manualLost - DRIFT);
    expect(manual.lost).toBeLessThanOrEqual(MODEL.manualLost + DRIFT);
  });

  it(`known gap: DLRover's runtime ratio stays at the model's ${pct(MODEL.dlroverRuntimeRatio)} +- ${DRIFT * 100} points, against the seed's ${pct(PUBLISHED.dlrover.runtimeRatio)}`, () => {
    report('DLRover runtime ratio (known gap)', dlrover.runtimeRatio, PUBLISHED.dlrover.runtimeRatio);
    expect(Math.abs(dlrover.runtimeRatio - PUBLISHED.dlrover.runtimeRatio)).toBeGreaterThan(TOLERANCE);
    expect(dlrover.runtimeRatio).toBeGreaterThanOrEqual(MODEL.dlroverRuntimeRatio - DRIFT);
    expect(dlrover.runtimeRatio).toBeLessThanOrEqual(MODEL.dlroverRuntimeRatio + DRIFT);
  });

  it(`known gap: DLRover's ETTR stays at the model's ${pct(MODEL.dlroverEttr)} +- ${DRIFT * 100} points, against the seed's ${pct(PUBLISHED.dlrover.ettr)}`, () => {
    report('DLRover ETTR (known gap)', dlrover.ettr, PUBLISHED.dlrover.ettr);
    expect(Math.abs(dlrover.ettr - PUBLISHED.dlrover.ettr)).toBeGreaterThan(TOLERANCE);
    expect(dlrover.ettr).toBeGreaterThanOrEqual(MODEL.dlroverEttr - DRIFT);
    expect(dlrover.ettr).toBeLessThanOrEqual(MODEL.dlroverEttr + DRIFT);
  });

  it('the stacks keep their order: manual < Torch Elastic < DLRover in runtime ratio and ETTR', () => {
    expect(manual.runtimeRatio).toBeLessThan(torchElastic.runtimeRatio);
    expect(torchElastic.runtimeRatio).toBeLessThan(dlrover.runtimeRatio);
    expect(manual.ettr).toBeLessThan(torchElastic.ettr);
    expect(torchElastic.ettr).toBeLessThan(dlrover.ettr);
  });
});
