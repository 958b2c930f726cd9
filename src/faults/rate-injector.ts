/**
 * Rate-based fault injection: every catalog type is an independent Poisson process per GPU (for
 * its per-GPU-day rate) and per node (for its per-node-day rate). Their superposition is itself a
 * Poisson process of total rate R, so the injector draws it as ONE process: an exponential gap of
 * rate R, then which type and which GPU or node it hit. Cost is one step per fault, never per GPU
 * or per tick, and idle GPUs and nodes fail too (the injector knows nothing of jobs).
 */
import type { RandomStream, RandomStreams } from '../engine/random.js';
import { ConfigError } from '../errors.js';
import type { ClusterSpec } from '../model/cluster-spec.js';
import type { FaultCatalog, FaultType } from './catalog.js';
import { repairSeconds, type FaultOccurrence } from './occurrence.js';

/** Seconds in a day: catalog rates are per GPU-day or per node-day. */
export const SECONDS_PER_DAY = 86_400;

/** What a channel's faults are drawn over: every GPU of the cluster, or a set of nodes. */
type Exposure = { readonly kind: 'gpus' } | { readonly kind: 'nodes'; readonly nodeIndexes: readonly number[] };

/** One of the superposed processes: a type's per-GPU or per-node part, with its rate over the whole cluster. */
interface Channel {
  readonly type: FaultType;
  readonly exposure: Exposure;
  readonly ratePerS: number;
}

/**
 * Draws the faults of a catalog on a cluster, in time order, starting at time 0.
 *
 * Streams: "faults" (the gaps), "fault-types" (which type), "fault-targets" (which node and GPU),
 * "repairs" (repair times). Deterministic per seed. Changing the catalog changes R and hence the
 * fault times (unavoidable for a superposed process), but never the arrival, duration or any
 * other stream, since the injector draws only from its own four.
 *
 * Exposure: a per-GPU-day rate is exposed on every GPU (so a node with more GPUs takes
 * proportionally more of those faults); a per-node-day rate on every node, except for GPU-scope
 * types, whose per-node part only hits nodes with GPUs. A GPU-scope fault names the GPU it hits
 * (for a per-node draw, one of the node's GPUs uniformly); so does a job-scope fault when its node
 * has GPUs (the GPU whose process it crashes). Node- and link-scope faults name no GPU.
 */
export class RateInjector {
  /** Total fault rate of the cluster, in faults per second (0 when nothing can fail). */
  readonly totalRatePerS: number;
  private readonly channels: readonly Channel[];
  private readonly channelRates: readonly number[];
  /** gpuOffsets[k] = GPUs on nodes before node k; one more entry holds the total. */
  private readonly gpuOffsets: readonly number[];
  private readonly gapStream: RandomStream;
  private readonly typeStream: RandomStream;
  private readonly targetStream: RandomStream;
  private readonly repairStream: RandomStream;
  private nowS = 0;

  /** Throws ConfigError for a negative or non-finite rate in the catalog. */
  constructor(
    readonly catalog: FaultCatalog,
    readonly cluster: ClusterSpec,
    streams: RandomStreams,
  ) {
    const gpuOffsets = [0];
    for (const node of cluster.nodes) gpuOffsets.push(gpuOffsets[gpuOffsets.length - 1]! + node.gpus);
    this.gpuOffsets = gpuOffsets;
    const totalGpus = gpuOffsets[gpuOffsets.length - 1]!;
    const allNodes = cluster.nodes.map((_, k) => k);
    const gpuNodes = allNodes.filter((k) => cluster.nodes[k]!.gpus > 0);

    const channels: Channel[] = [];
    catalog.types.forEach((type, i) => {
      const where = `fault catalog ${catalog.name}: types[${i}] (${type.name})`;
      checkRate(`${where}.ratePerGpuDay`, type.ratePerGpuDay);
      checkRate(`${where}.ratePerNodeDay`, type.ratePerNodeDay);
      if (type.ratePerGpuDay > 0 && totalGpus > 0) {
        channels.push({ type, exposure: { kind: 'gpus' }, ratePerS: (type.ratePerGpuDay * totalGpus) / SECONDS_PER_DAY });
      }
      const nodeIndexes = type.scope === 'gpu' ? gpuNodes : allNodes;
      if (type.ratePerNodeDay > 0 && nodeIndexes.length > 0) {
        channels.push({
          type,
          exposure: { kind: 'nodes', nodeIndexes },
          ratePerS: (type.ratePerNodeDay * nodeIndexes.length) / SECONDS_PER_DAY,
        });
      }
    });
    this.channels = channels;
    this.channelRates = channels.map((c) => c.ratePerS);
    this.totalRatePerS = this.channelRates.reduce((sum, rate) => sum + rate, 0);
    this.gapStream = streams.stream('faults');
    this.typeStream = streams.stream('fault-types');
    this.targetStream = streams.stream('fault-targets');
    this.repairStream = streams.stream('repairs');
  }

  /** The next fault after the previous one (times strictly increase); null when the total rate is 0. */
  next(): FaultOccurrence | null {
    if (this.totalRatePerS <= 0) return null;
    this.nowS += this.gapStream.exponential(this.totalRatePerS);
    const channel = this.channels[this.typeStream.weightedIndex(this.channelRates)]!;
    const { nodeIndex, gpuIndex } = this.target(channel);
    return {
      timeS: this.nowS,
      type: channel.type,
      nodeIndex,
      gpuIndex,
      repairS: repairSeconds(channel.type.repair, this.repairStream),
    };
  }

  /** Where a fault of this channel lands: a uniform GPU of the cluster, or a uniform exposed node. */
  private target(channel: Channel): { nodeIndex: number; gpuIndex: number | null } {
    const namesGpu = channel.type.scope === 'gpu' || channel.type.scope === 'job';
    if (channel.exposure.kind === 'gpus') {
      const totalGpus = this.gpuOffsets[this.gpuOffsets.length - 1]!;
      const gpu = this.targetStream.int(totalGpus);
      const nodeIndex = this.nodeOfGpu(gpu);
      return { nodeIndex, gpuIndex: namesGpu ? gpu - this.gpuOffsets[nodeIndex]! : null };
    }
    const nodes = channel.exposure.nodeIndexes;
    const nodeIndex = nodes[this.targetStream.int(nodes.length)]!;
    const gpus = this.cluster.nodes[nodeIndex]!.gpus;
    return { nodeIndex, gpuIndex: namesGpu && gpus > 0 ? this.targetStream.int(gpus) : null };
  }

  /** The node holding cluster-wide GPU number `gpu` (binary search over the GPU offsets). */
  private nodeOfGpu(gpu: number): number {
    let low = 0;
    let high = this.cluster.nodes.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (this.gpuOffsets[mid]! <= gpu) low = mid;
      else high = mid - 1;
    }
    return low;
  }
}

function checkRate(where: string, rate: number): void {
  if (!Number.isFinite(rate) || rate < 0) throw new ConfigError(where, `must be a finite rate ≥ 0, got ${rate}`);
}
