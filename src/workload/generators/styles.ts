import type { RandomStreams } from '../../engine/random.js';
import type { JobSpec } from '../../model/job-spec.js';
import { generateAlibabaPaiJobs } from './alibaba-pai.js';
import { generateAntJobs } from './ant.js';
import { generatePhillyJobs } from './philly.js';

/** Makes `count` jobs from seeded streams; the same seed gives the same jobs, sorted by submitS. */
export type JobGenerator = (count: number, streams: RandomStreams) => JobSpec[];

/** A workload generator style: what `trace generate --style` chooses from. */
export interface GeneratorStyle {
  /** One line: what the jobs look like and where the figures come from. */
  readonly description: string;
  readonly generate: JobGenerator;
}

/** Generator styles by id: one line each (see traces/README.md for the figures behind them). */
export const generatorStyles: Readonly<Record<string, GeneratorStyle>> = {
  philly: {
    description: 'Microsoft Philly batch jobs: GPU mix, durations by size and daily arrivals measured from the Pollux philly.csv',
    generate: generatePhillyJobs,
  },
  'alibaba-pai': {
    description: 'Alibaba PAI batch jobs with GPU sharing and 10% PS jobs: shapes measured from the 2023 pod list, durations after NSDI\'22',
    generate: generateAlibabaPaiJobs,
  },
  ant: {
    description: "Ant/DLRover: CPU parameter-server jobs (1-15 PS, 1-60 workers) and 1% elastic LLM all-reduce jobs of 512-8,192 GPUs",
    generate: generateAntJobs,
  },
};

/** Ids of all generator styles, in declaration order. */
export function generatorStyleIds(): string[] {
  return Object.keys(generatorStyles);
}
