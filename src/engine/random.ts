import seedrandom from 'seedrandom';

/** A seeded uniform random source with the few distributions the simulator draws from. */
export class RandomStream {
  private readonly prng: seedrandom.PRNG;
  private spareNormal: number | null = null;

  /** @param key the seed material: scenario seed and stream name. */
  constructor(key: string) {
    this.prng = seedrandom.alea(key);
  }

  /** Uniform in [0, 1). */
  uniform(): number {
    return this.prng();
  }

  /** Exponential with the given rate (events per unit); mean 1/rate. */
  exponential(rate: number): number {
    // 1 - u is in (0, 1], so the log is finite.
    return -Math.log(1 - this.prng()) / rate;
  }

  /** Standard normal (Box-Muller, caching the second value). */
  normal(): number {
    if (this.spareNormal !== null) {
      const value = this.spareNormal;
      this.spareNormal = null;
      return value;
    }
    const u1 = 1 - this.prng();
    const u2 = this.prng();
    const radius = Math.sqrt(-2 * Math.log(u1));
    this.spareNormal = radius * Math.sin(2 * Math.PI * u2);
    return radius * Math.cos(2 * Math.PI * u2);
  }

  /** Log-normal with the given median and log-space standard deviation. */
  logNormal(median: number, sigma: number): number {
    return median * Math.exp(sigma * this.normal());
  }

  /** Integer uniform in [0, n). */
  int(n: number): number {
    return Math.floor(this.prng() * n);
  }

  /** Index drawn with probability proportional to weights[i] (weights need not sum to 1). */
  weightedIndex(weights: readonly number[]): number {
    let total = WEIGHT_TOTALS.get(weights);
    if (total === undefined) {
      total = 0;
      for (const w of weights) total += w;
      WEIGHT_TOTALS.set(weights, total);
    }
    let target = this.prng() * total;
    for (let i = 0; i < weights.length; i++) {
      target -= weights[i]!;
      if (target < 0) return i;
    }
    return weights.length - 1;
  }
}

/** Named random streams derived from one scenario seed: one stream per purpose, independent of the others. */
export class RandomStreams {
  private readonly streams = new Map<string, RandomStream>();

  constructor(readonly seed: number) {}

  /** The stream for a purpose ("arrivals", "durations", "faults", ...); the same name gives the same stream. */
  stream(name: string): RandomStream {
    let stream = this.streams.get(name);
    if (!stream) {
      stream = new RandomStream(`dlsim:${this.seed}:${name}`);
      this.streams.set(name, stream);
    }
    return stream;
  }
}

/** Sums of the weight lists `weightedIndex` drew from (a generator draws from one list a million times). */
const WEIGHT_TOTALS = new WeakMap<readonly number[], number>();
