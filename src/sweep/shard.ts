/** Shards of a sweep: shard I of N runs the cells whose index mod N is I (I counts from 0, like Kubernetes' JOB_COMPLETION_INDEX). */
import { ConfigError } from '../errors.js';

/** One shard of N. */
export interface Shard {
  readonly index: number;
  readonly count: number;
}

/** Most shards a sweep may be cut into. */
export const MAX_SHARDS = 100_000;

/** Parses `I/N` (0 <= I < N); anything else is a ConfigError at `option`. */
export function parseShard(text: string, option = '--shard'): Shard {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  if (!match) throw new ConfigError(option, `expected I/N (shard I of N, I from 0 to N-1), got ${JSON.stringify(text)}`);
  const index = Number(match[1]);
  const count = Number(match[2]);
  if (!(count >= 1 && count <= MAX_SHARDS)) throw new ConfigError(option, `expected a shard count N from 1 to ${MAX_SHARDS}, got ${match[2]}`);
  if (!(index < count)) throw new ConfigError(option, `shard index ${index} is out of range: expected 0 to ${count - 1}`);
  return { index, count };
}

/** True when the cell at `cellIndex` belongs to the shard (every cell belongs to no shard at all). */
export function inShard(cellIndex: number, shard: Shard | null): boolean {
  return shard === null || cellIndex % shard.count === shard.index;
}

/** The shard as text, "I/N", or "all" for none. */
export function shardText(shard: Shard | null): string {
  return shard === null ? 'all' : `${shard.index}/${shard.count}`;
}
