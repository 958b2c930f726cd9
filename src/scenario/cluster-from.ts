/** What a scenario does to a machine list read with `cluster.from`: a seeded sample of it, then copies of it. */
import type { RandomStream } from '../engine/random.js';
import type { NodeSpec } from '../model/cluster-spec.js';

/** How many machines a sample keeps: a count, or a share of the list. */
export type MachineSample = { readonly nodes: number } | { readonly share: number };

/** Machines a sample keeps of `total`: its count, or its share rounded (at least one). */
export function sampleSize(sample: MachineSample, total: number): number {
  return 'nodes' in sample ? sample.nodes : Math.max(1, Math.round(sample.share * total));
}

/**
 * `count` machines drawn without replacement, each set of that size alike (a partial Fisher-Yates
 * shuffle of the indices on `stream`), returned in the list's order. `count` must not exceed the list.
 */
export function sampledMachines(machines: readonly NodeSpec[], count: number, stream: RandomStream): NodeSpec[] {
  const indices = machines.map((_, i) => i);
  for (let i = 0; i < count; i++) {
    const j = i + stream.int(indices.length - i);
    [indices[i], indices[j]] = [indices[j]!, indices[i]!];
  }
  return indices
    .slice(0, count)
    .sort((a, b) => a - b)
    .map((i) => machines[i]!);
}

/** The list repeated `copies` times, copy by copy; copy k's names and racks end in `-c<k>` (one copy: the list as it is). */
export function scaledMachines(machines: readonly NodeSpec[], copies: number): NodeSpec[] {
  if (copies === 1) return [...machines];
  const nodes: NodeSpec[] = [];
  for (let k = 0; k < copies; k++) {
    for (const machine of machines) nodes.push({ ...machine, name: `${machine.name}-c${k}`, rack: `${machine.rack}-c${k}` });
  }
  return nodes;
}
