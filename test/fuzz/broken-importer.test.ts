/**
 * The importer fuzzing catches a broken importer: a copy of the Helios reader that throws a plain
 * Error on a bad cell (instead of a located TraceError) must make the fuzz run fail, naming the
 * error and the seed that replays it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TraceError } from '../../src/errors.js';
import { traceFormats } from '../../src/workload/formats.js';
import type { TraceFormat } from '../../src/workload/trace-format.js';
import { Scratch } from './harness.js';
import { fuzzImporter } from './importer-fuzz.js';

const SAMPLE = join(import.meta.dirname, '../../traces/samples/helios/cluster_log.csv');
/** Cases the broken importer gets; a mutated row is bad in most cases, so a handful already fail. */
const RUNS = 200;

const helios = traceFormats['helios']!;

/** Helios as a careless importer would read it: a bad cell throws a bare Error with no file or line. */
const brokenHelios: TraceFormat = {
  ...helios,
  id: 'helios-broken',
  async *readJobs(files, options) {
    const bareError = (error: TraceError): Error => new Error(`bad cell: ${error.message.slice(error.message.lastIndexOf(': ') + 2)}`);
    try {
      yield* helios.readJobs(files, {
        ...options,
        onSkip: (error) => {
          throw bareError(error);
        },
      });
    } catch (error) {
      throw error instanceof TraceError ? bareError(error) : error;
    }
  },
};

const scratch = new Scratch();
afterAll(() => scratch.dispose());

describe('the importer fuzzing', () => {
  it('fails on an importer that throws a bare Error on a bad cell, with the replay seed', async () => {
    const target = { name: 'broken helios', format: brokenHelios, kind: 'csv' as const, reader: 'jobs' as const, seeds: [{ files: [{ name: 'cluster_log.csv', text: readFileSync(SAMPLE, 'utf8') }] }] };
    const failure = await fuzzImporter(target, scratch, RUNS, 99).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure, 'the fuzz run passed an importer that throws bare Errors').toBeInstanceOf(Error);
    const message = (failure as Error).message;
    expect(message).toMatch(/^fuzz target "broken helios" failed \(fuzz seed -?\d+; replay: DLSIM_FUZZ_SEED=-?\d+ /);
    expect(message).toContain('not a ConfigError or TraceError: Error: bad cell');
  });

  it('passes the same importer unbroken on the same cases', async () => {
    const target = { name: 'helios unbroken', format: helios, kind: 'csv' as const, reader: 'jobs' as const, seeds: [{ files: [{ name: 'cluster_log.csv', text: readFileSync(SAMPLE, 'utf8') }] }] };
    await fuzzImporter(target, scratch, RUNS, 99);
  });
});
