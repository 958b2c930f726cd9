import { InvariantError } from '../../errors.js';

/**
 * The order keys of queued jobs, by arrival index (JobView.arrivalIndex): each key's numbers side
 * by side in one typed array, so that a queue's ordered sets hold the jobs' numbers instead of a
 * key array a job. A long queue kept a million such arrays, and the map from job to key, alive
 * past young-generation collections: copied into the old generation, then marked there.
 * Every key has the length of the first one written (a queue's policy orders all its jobs alike).
 */
export class JobKeys {
  private values = new Float64Array(0);
  /** Numbers a key (0 until the first key is written). */
  private width = 0;

  /** Writes the job's key (the caller keeps no reference to it), replacing the one it had. */
  write(arrivalIndex: number, key: readonly number[]): void {
    if (this.width === 0) this.width = key.length;
    if (key.length !== this.width) throw new InvariantError(`an order key of ${key.length} numbers where the queue's keys have ${this.width}`);
    const at = arrivalIndex * this.width;
    if (at + this.width > this.values.length) {
      const grown = new Float64Array(Math.max(at + this.width, 2 * this.values.length, 64 * this.width));
      grown.set(this.values);
      this.values = grown;
    }
    for (let k = 0; k < this.width; k++) this.values[at + k] = key[k]!;
  }

  /** Orders two jobs by their keys, number by number (negative: `a` first; 0 for equal keys). */
  readonly compare = (a: number, b: number): number => {
    const values = this.values;
    const width = this.width;
    const atA = a * width;
    const atB = b * width;
    for (let k = 0; k < width; k++) {
      const d = values[atA + k]! - values[atB + k]!;
      if (d !== 0) return d;
    }
    return 0;
  };
}

/** The job's arrival index, checked to be one (a whole number from 0), for a queue that keeps jobs in arrays by it. */
export function arrivalIndexOf(job: { readonly arrivalIndex: number; readonly request: { readonly id: string } }): number {
  const index = job.arrivalIndex;
  if (!(Number.isInteger(index) && index >= 0)) throw new InvariantError(`job ${job.request.id}: arrival index ${index} is not a whole number from 0`);
  return index;
}

/**
 * Values kept per job by arrival index: an array grown as jobs come. A map by job id that jobs keep
 * joining and leaving fills with deleted entries and makes its table again and again, and in a long
 * run each table lived long enough to be copied into the old generation.
 */
export class ByArrival<T> {
  private values: (T | undefined)[] = [];
  private count = 0;

  /** Jobs with a value. */
  get size(): number {
    return this.count;
  }

  /** The job's value, or undefined. */
  get(job: { readonly arrivalIndex: number }): T | undefined {
    return this.values[job.arrivalIndex];
  }

  /** Sets the job's value (its arrival index checked: see arrivalIndexOf). */
  set(job: { readonly arrivalIndex: number; readonly request: { readonly id: string } }, value: T): void {
    const index = arrivalIndexOf(job);
    if (index >= this.values.length) {
      const grown = new Array<T | undefined>(Math.max(index + 1, 2 * this.values.length, 64)).fill(undefined);
      for (let k = 0; k < this.values.length; k++) grown[k] = this.values[k];
      this.values = grown;
    }
    if (this.values[index] === undefined) this.count++;
    this.values[index] = value;
  }

  /** Takes the job's value out and returns it (undefined when it had none). */
  take(job: { readonly arrivalIndex: number }): T | undefined {
    const value = this.values[job.arrivalIndex];
    if (value === undefined) return undefined;
    this.values[job.arrivalIndex] = undefined;
    this.count--;
    return value;
  }
}
