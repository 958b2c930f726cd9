/**
 * Replay of the InfiniteHBD fault trace (stepfun-ai/InfiniteHBD-Trace, SIGCOMM'25; the file lives in
 * ../shared/traces/infinitehbd-faults): one JSON array of `{node_id, event_time, event_type,
 * fault_type: {Level, Class, Desc}}` events sorted by time, where `event_time` is in days (relative
 * to the trace's first event, per its README; the real first event is at 3.9 days and is kept as
 * is, not shifted to 0), `fault_start` takes a node out of service and `fault_end` returns it.
 *
 * readFaultTrace pairs each start with the earliest open start of the same node and fault type
 * (first in, first out). A start that never ends lasts to the end of the trace (the last event's
 * time) and is flagged `openEnded`; the real file has none (584 starts, 584 ends, all paired; 14
 * last zero days, i.e. end at the same instant). An end with no open start, an unsorted time or
 * a malformed event is a TraceError whose "line" is the event's 0-based array index (problems with
 * the whole file use line 0 and column "file").
 *
 * The real file covers 400 servers (its README), of which 231 appear in it (the others never
 * failed), over 348 days.
 */
import { readFile } from 'node:fs/promises';
import { RandomStream, RandomStreams } from '../engine/random.js';
import { ConfigError, TraceError } from '../errors.js';
import type { ClusterSpec } from '../model/cluster-spec.js';
import { fileError } from '../workload/csv-rows.js';
import type { FaultEffect, FaultScope, FaultType, RepairTime } from './catalog.js';
import type { FaultOccurrence } from './occurrence.js';

/** Servers the InfiniteHBD trace was taken on (its README); only 231 of them ever fault. */
export const INFINITE_HBD_SERVERS = 400;

/** Days the InfiniteHBD trace covers (its README; the last event is at 348.98 days). */
export const INFINITE_HBD_DAYS = 348;

/**
 * Repair time of the replay types that take hardware down, for use as a rate catalog only (a
 * replay uses each fault's own end - start): a log-normal fitted to the trace's 570 non-zero
 * durations (median of the logs 15.0 h, their standard deviation 2.52).
 */
export const INFINITE_HBD_REPAIR: RepairTime = { kind: 'lognormal', medianS: 54_000, sigma: 2.5 };

/** Seconds in a day: the trace's times are in days. */
const SECONDS_PER_DAY = 86_400;

/** One fault of a trace: a node out of service from its start to its end, with the trace's taxonomy. */
export interface TraceFault {
  /** The trace's (anonymised) node id. */
  readonly nodeId: string;
  /** Taxonomy level, e.g. "Hardware Failure". */
  readonly level: string;
  /** Taxonomy class, e.g. "GPU". */
  readonly faultClass: string;
  /** Taxonomy description, e.g. "GPU DBE(Double Bit ECC) > Threshold". */
  readonly desc: string;
  /** Start, in days on the trace's clock. */
  readonly startDays: number;
  /** End, in days on the trace's clock (≥ startDays); the trace's last event time when openEnded. */
  readonly endDays: number;
  /** True when the trace has no fault_end for it, so it lasts to the end of the trace. */
  readonly openEnded: boolean;
  /** 0-based array index of its fault_start event (stable id of the fault within its file). */
  readonly index: number;
}

/**
 * Reads a fault trace file (JSON array of start/end events, sorted by time) into faults paired
 * start to end, in order of their start events. Throws TraceError (line = array index) for bad
 * events and ConfigError for a file that cannot be read.
 */
export async function readFaultTrace(file: string): Promise<TraceFault[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw fileError(file, error);
  }
  let events: unknown;
  try {
    events = JSON.parse(text);
  } catch {
    throw new TraceError(file, 0, 'file', 'not valid JSON');
  }
  if (!Array.isArray(events)) throw new TraceError(file, 0, 'file', 'not a JSON array');
  return pairFaultEvents(file, events);
}

/** A fault being built: its end is filled in when the matching fault_end is read. */
type OpenFault = { -readonly [K in keyof TraceFault]: TraceFault[K] };

/** Pairs start and end events (already parsed from `file`) into faults; see readFaultTrace. */
export function pairFaultEvents(file: string, events: readonly unknown[]): TraceFault[] {
  const faults: OpenFault[] = [];
  const open = new Map<string, OpenFault[]>();
  let lastDays = 0;
  events.forEach((event, index) => {
    const fail = (column: string, reason: string, value?: unknown): never => {
      throw new TraceError(file, index, column, reason, value === undefined ? undefined : String(value));
    };
    if (typeof event !== 'object' || event === null || Array.isArray(event)) fail('record', 'not an object');
    const record = event as Record<string, unknown>;
    const nodeId = record.node_id;
    if (typeof nodeId !== 'string' || nodeId === '') fail('node_id', 'missing or not a string', nodeId);
    const days = record.event_time;
    if (typeof days !== 'number' || !Number.isFinite(days)) fail('event_time', 'not a number', days);
    if ((days as number) < 0) fail('event_time', 'negative time', days);
    if ((days as number) < lastDays) fail('event_time', 'not sorted by time', days);
    lastDays = days as number;
    const faultType = record.fault_type;
    if (typeof faultType !== 'object' || faultType === null) fail('fault_type', 'missing or not an object');
    const taxonomy = faultType as Record<string, unknown>;
    for (const field of ['Level', 'Class', 'Desc']) {
      if (typeof taxonomy[field] !== 'string') fail(`fault_type.${field}`, 'missing or not a string', taxonomy[field]);
    }
    const level = taxonomy.Level as string;
    const faultClass = taxonomy.Class as string;
    const desc = taxonomy.Desc as string;
    const key = JSON.stringify([nodeId, level, faultClass, desc]);
    switch (record.event_type) {
      case 'fault_start': {
        const fault: OpenFault = { nodeId: nodeId as string, level, faultClass, desc, startDays: days as number, endDays: NaN, openEnded: true, index };
        faults.push(fault);
        const queue = open.get(key);
        if (queue) queue.push(fault);
        else open.set(key, [fault]);
        break;
      }
      case 'fault_end': {
        const fault = open.get(key)?.shift();
        if (!fault) return fail('event_type', 'fault_end without an open fault_start', 'fault_end');
        fault.endDays = days as number;
        fault.openEnded = false;
        break;
      }
      default:
        fail('event_type', 'not fault_start or fault_end', record.event_type);
    }
  });
  for (const fault of faults) if (fault.openEnded) fault.endDays = lastDays;
  return faults;
}

/** How one InfiniteHBD Level/Class/Desc maps onto a fault type (effect, scope, category). */
export interface InfiniteHbdMapping {
  readonly level: string;
  readonly faultClass: string;
  readonly desc: string;
  /** Faults of this Level/Class/Desc in the trace (fault_statistics.json). */
  readonly traceStarts: number;
  /** The fault type its faults replay as. */
  readonly type: FaultType;
}

/** True for effects that take hardware out of service until repaired (the others need no repair). */
function takesHardwareDown(effect: FaultEffect): boolean {
  return effect.kind !== 'crash' && effect.kind !== 'hang' && effect.kind !== 'silent-corruption';
}

/**
 * Builds a replay fault type. A replay takes times and repairs from the trace; the rate
 * (`starts` per server-day of the trace) and repair (INFINITE_HBD_REPAIR) only make the table
 * usable as a rate catalog as well, and keep the catalog's invariants (repair "none" exactly for
 * effects that take no hardware down).
 */
function replayType(
  name: string,
  effect: FaultEffect,
  scope: FaultScope,
  category: FaultType['category'],
  foundByNodeCheck: boolean,
  xid: number | null,
  description: string,
  starts: number,
): FaultType {
  const repair: RepairTime = takesHardwareDown(effect) ? INFINITE_HBD_REPAIR : { kind: 'none' };
  const ratePerNodeDay = starts / (INFINITE_HBD_SERVERS * INFINITE_HBD_DAYS);
  return { name, xid, description, ratePerGpuDay: 0, ratePerNodeDay, scope, effect, foundByNodeCheck, repair, category };
}

const GPU_DOWN: FaultEffect = { kind: 'gpu-down' };
const NODE_DOWN: FaultEffect = { kind: 'node-down' };
const NETWORK_DOWN: FaultEffect = { kind: 'network-down' };
const CRASH: FaultEffect = { kind: 'crash' };
/** Speed of a degraded GPU (thermal throttling, narrow PCIe, slow P2P): half, a documented guess (the trace gives no speeds). */
const DEGRADED: FaultEffect = { kind: 'slowdown', factor: 0.5 };

const HW = 'Hardware Failure';
const SW = 'Software Failure';
const OTHER = 'Other Failure';

/** One row of the table: the taxonomy, its count of starts, then the type (as replayType takes it). */
function mapping(
  level: string,
  faultClass: string,
  desc: string,
  traceStarts: number,
  ...type: [name: string, effect: FaultEffect, scope: FaultScope, category: FaultType['category'], foundByNodeCheck: boolean, xid: number | null, description: string]
): InfiniteHbdMapping {
  return { level, faultClass, desc, traceStarts, type: replayType(...type, traceStarts) };
}

/**
 * Every Level/Class/Desc of the InfiniteHBD trace (all 40 in its fault_statistics.json) and the
 * fault type it replays as. REFERENCE §7 fixes: GPU DBE -> GPU down; Link Down and NIC -> network
 * loss; Fan and power supply -> node down; unknown errors -> process crash. The rest, decided here
 * (each type's description says why): other GPU losses -> GPU down; degraded GPUs (temperature,
 * PCIe width, P2P bandwidth) -> slowdown x0.5; nvidia-smi timeout -> hang; silent data corruption
 * -> silent corruption; every other hardware, OS, file-system, kubelet, firmware or operational
 * removal (stress test failure, suspect machine, test) -> node down, since the trace says the node
 * was out of service; optical and cabling changes -> network loss. GPU-class faults are GPU-scope
 * (one GPU of the node), network ones link-scope, the rest node-scope. A replay takes times and
 * repairs from the trace; each type's rate (its starts per server-day: starts / (400 x 348)) and
 * repair (INFINITE_HBD_REPAIR, or none) serve only when the table is used as a rate catalog.
 */
export const infiniteHbdTypes: readonly InfiniteHbdMapping[] = [
  // Software Failure
  mapping(SW, 'Other Failures', 'Unknown Error', 12, 'hbd-software-unknown', CRASH, 'node', 'software', false, null, 'Unknown software error: the processes on the node crash (REFERENCE §7: unknown -> crash)'),
  mapping(SW, 'File System', 'FS: Multiple Disk FS Error', 2, 'hbd-fs-disk-error', NODE_DOWN, 'node', 'software', false, null, 'File-system errors on several disks: the node cannot hold jobs until fixed'),
  mapping(SW, 'File System', 'FS Readonly', 1, 'hbd-fs-readonly', NODE_DOWN, 'node', 'software', false, null, 'File system turned read-only: no checkpoints or logs, the node is drained until fixed'),
  mapping(SW, 'Software Tool', 'Kubelet Date Absent', 7, 'hbd-kubelet-absent', NODE_DOWN, 'node', 'software', false, null, 'Kubelet stopped reporting: the orchestrator marks the node NotReady and evicts its pods'),
  mapping(SW, 'Operating System', 'Kernel Panic', 1, 'hbd-kernel-panic', NODE_DOWN, 'node', 'software', false, null, 'Kernel panic: the node is down until rebooted'),
  mapping(SW, 'Firmware', 'Firmware mismatch', 1, 'hbd-firmware-mismatch', NODE_DOWN, 'node', 'software', false, null, 'Firmware mismatch: the node is drained for a firmware update'),
  // Hardware Failure: GPU
  mapping(HW, 'GPU', 'GPU DBE(Double Bit ECC) > Threshold', 60, 'hbd-gpu-dbe', GPU_DOWN, 'gpu', 'hardware', true, 48, 'Uncorrectable (double-bit) ECC errors over threshold, Xid 48: the GPU is unusable until repaired (REFERENCE §7)'),
  mapping(HW, 'GPU', 'GPU xid Error', 11, 'hbd-gpu-xid', GPU_DOWN, 'gpu', 'hardware', true, null, 'An unspecified GPU Xid that took the node out of service: the GPU is unusable until repaired'),
  mapping(HW, 'GPU', 'GPU Temperature High', 2, 'hbd-gpu-thermal', DEGRADED, 'gpu', 'hardware', false, null, 'GPU too hot: thermal throttling halves its speed; at exactly 2x the median the node check does not flag it (> 2x)'),
  mapping(HW, 'GPU', 'GPU Lost', 5, 'hbd-gpu-lost', GPU_DOWN, 'gpu', 'hardware', true, 79, 'GPU fell off the bus (Xid 79): unusable until the node is repaired'),
  mapping(HW, 'GPU', 'GPU device unknow error', 40, 'hbd-gpu-unknown', GPU_DOWN, 'gpu', 'hardware', true, null, 'Unknown GPU device error: the GPU is unusable until repaired'),
  mapping(HW, 'GPU', 'GPU PCI link width low', 25, 'hbd-gpu-pcie-width', DEGRADED, 'gpu', 'hardware', false, null, 'GPU PCIe link trained at reduced width: host transfers slow the GPU to half speed; at exactly 2x the median the node check does not flag it (> 2x)'),
  mapping(HW, 'GPU', 'nvidia-smi Timeout', 9, 'hbd-gpu-smi-timeout', { kind: 'hang' }, 'gpu', 'hardware', true, null, 'GPU stops answering (nvidia-smi times out): its processes hang until a timeout'),
  mapping(HW, 'GPU', 'GPU SBE(Single Bit ECC) > Threshold', 1, 'hbd-gpu-sbe', GPU_DOWN, 'gpu', 'hardware', false, 92, 'Excess single-bit ECC errors (Xid 92): the GPU is drained for row remapping or replacement'),
  mapping(HW, 'GPU', 'GPU P2P Bandwidth Low', 3, 'hbd-gpu-p2p-slow', DEGRADED, 'gpu', 'hardware', false, null, 'Low GPU peer-to-peer bandwidth: collectives through it run at half speed; at exactly 2x the median the node check does not flag it (> 2x)'),
  mapping(HW, 'GPU', 'Silent Data Corruption', 1, 'hbd-gpu-sdc', { kind: 'silent-corruption' }, 'gpu', 'hardware', false, null, 'Silent data corruption: wrong results until found, forcing a rollback; no health check finds it'),
  mapping(HW, 'GPU', 'GPU device not found', 1, 'hbd-gpu-not-found', GPU_DOWN, 'gpu', 'hardware', true, null, 'GPU not found by the driver: unusable until repaired'),
  // Hardware Failure: network
  mapping(HW, 'Parameter Plane Cable', 'Link Down', 40, 'hbd-link-down', NETWORK_DOWN, 'link', 'network', true, null, 'Parameter-plane (training network) cable link down: the node loses its network (REFERENCE §7)'),
  mapping(HW, 'NIC', 'NIC Link Speed low', 10, 'hbd-nic-speed-low', NETWORK_DOWN, 'link', 'network', true, null, 'NIC negotiated a low link speed: the node was taken off the network (REFERENCE §7: NIC -> network loss)'),
  mapping(HW, 'NIC', 'NIC Lost', 8, 'hbd-nic-lost', NETWORK_DOWN, 'link', 'network', true, null, 'NIC disappeared: the node loses its network (REFERENCE §7)'),
  mapping(HW, 'NIC', 'NIC PCI link Width low', 1, 'hbd-nic-pcie-width', NETWORK_DOWN, 'link', 'network', true, null, 'NIC PCIe link at reduced width: the node was taken off the network (REFERENCE §7: NIC -> network loss)'),
  mapping(HW, 'NIC', 'Rnic Gid Error', 11, 'hbd-rnic-gid', NETWORK_DOWN, 'link', 'network', true, null, 'RDMA NIC GID error: RDMA connections fail, the node loses its network (REFERENCE §7)'),
  // Hardware Failure: rest of the server
  mapping(HW, 'Power Supply', 'Power Supply Failure detected', 25, 'hbd-psu-failure', NODE_DOWN, 'node', 'hardware', false, null, 'Power supply failure: the node is down until repaired (REFERENCE §7)'),
  mapping(HW, 'Power Supply', 'Redundancy Lost', 1, 'hbd-psu-redundancy', NODE_DOWN, 'node', 'hardware', false, null, 'Power supply redundancy lost: the node is drained for a PSU swap (REFERENCE §7)'),
  mapping(HW, 'Fan', 'Speed Critical (Sensor)', 31, 'hbd-fan-speed', NODE_DOWN, 'node', 'hardware', false, null, 'Fan speed critical: the node is down until the fan is replaced (REFERENCE §7)'),
  mapping(HW, 'Fan', 'Redundancy Lost', 2, 'hbd-fan-redundancy', NODE_DOWN, 'node', 'hardware', false, null, 'Fan redundancy lost: the node is drained for a fan swap (REFERENCE §7)'),
  mapping(HW, 'Motherboard Battery', 'Low', 1, 'hbd-board-battery', NODE_DOWN, 'node', 'hardware', false, null, 'Motherboard battery low: the node is drained for maintenance'),
  mapping(HW, 'Other Failures', 'Unknown Error', 1, 'hbd-hardware-unknown', CRASH, 'node', 'hardware', false, null, 'Unknown hardware error: the processes on the node crash (REFERENCE §7: unknown -> crash)'),
  mapping(HW, 'Motherboard', 'Motherboard Failed', 4, 'hbd-motherboard', NODE_DOWN, 'node', 'hardware', false, null, 'Motherboard failed: the node is down until repaired'),
  mapping(HW, 'CPU', 'Configuration Error', 1, 'hbd-cpu-config', NODE_DOWN, 'node', 'hardware', false, null, 'CPU configuration error: the node is drained until fixed'),
  mapping(HW, 'CPU', 'Machine Check Exception ( Uncorrectable )', 2, 'hbd-cpu-mce', NODE_DOWN, 'node', 'hardware', false, null, 'Uncorrectable machine check: the node crashes and is down until repaired'),
  mapping(HW, 'RAID Card', 'Bus Correctable error', 1, 'hbd-raid-card', NODE_DOWN, 'node', 'hardware', false, null, 'RAID card bus errors: the node is drained for repair'),
  mapping(HW, 'Riser Card', 'RiserCard Fault', 1, 'hbd-riser-card', NODE_DOWN, 'node', 'hardware', false, null, 'Riser card fault (it carries GPUs and NICs): the node is down until repaired'),
  // Other Failure
  mapping(OTHER, 'Unknown Error', 'Unknown Error', 144, 'hbd-unknown', CRASH, 'node', 'software', false, null, 'Unknown error: the processes on the node crash (REFERENCE §7: unknown -> crash)'),
  mapping(OTHER, 'System Crash', 'Server down', 1, 'hbd-server-down', NODE_DOWN, 'node', 'hardware', false, null, 'Server down: the node is lost until repaired'),
  mapping(OTHER, 'Stress Test Failure', 'Unknown Error', 97, 'hbd-stress-test', NODE_DOWN, 'node', 'hardware', true, null, 'Node failed a stress test: it is out of service until repaired (a test, not a crash, found it, so not "unknown -> crash")'),
  mapping(OTHER, 'Change', 'Y-cables Taken offline', 3, 'hbd-y-cables-offline', NETWORK_DOWN, 'link', 'network', true, null, 'Y-cables taken offline by a change: the node loses its network'),
  mapping(OTHER, 'Change', 'Remote Optical Module Failure', 1, 'hbd-optical-module', NETWORK_DOWN, 'link', 'network', true, null, 'Remote optical module failed: the node loses its network'),
  mapping(OTHER, 'Training Task Troubleshooting', 'Suspect Machine Offline', 14, 'hbd-suspect-offline', NODE_DOWN, 'node', 'hardware', false, null, 'Taken offline as a suspect while troubleshooting a training job: the node is out of service'),
  mapping(OTHER, 'Test', 'Temporarily Offline', 2, 'hbd-test-offline', NODE_DOWN, 'node', 'hardware', false, null, 'Temporarily offline for testing: the node is out of service'),
];

const mappingByKey = new Map(infiniteHbdTypes.map((m) => [taxonomyKey(m.level, m.faultClass, m.desc), m.type]));

function taxonomyKey(level: string, faultClass: string, desc: string): string {
  return JSON.stringify([level, faultClass, desc]);
}

function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

/**
 * The fault type of a Level/Class/Desc: its entry in infiniteHbdTypes, or for a combination not
 * in the table (another version of the trace) a fallback by class, then level: GPU -> GPU down,
 * NIC or cable -> network loss, a Desc "Unknown Error" -> crash, other hardware -> node down,
 * anything else -> crash. The same combination always gives the same object.
 */
export function infiniteHbdFaultType(level: string, faultClass: string, desc: string): FaultType {
  const key = taxonomyKey(level, faultClass, desc);
  const known = mappingByKey.get(key);
  if (known) return known;
  const name = `hbd-other-${slug(level)}-${slug(faultClass)}-${slug(desc)}`;
  const description = `${level} / ${faultClass} / ${desc} (not in the mapping table; mapped by class and level)`;
  let type: FaultType;
  if (faultClass === 'GPU') type = replayType(name, GPU_DOWN, 'gpu', 'hardware', true, null, description, 0);
  else if (faultClass === 'NIC' || faultClass === 'Parameter Plane Cable') type = replayType(name, NETWORK_DOWN, 'link', 'network', true, null, description, 0);
  else if (desc === 'Unknown Error') type = replayType(name, CRASH, 'node', level === HW ? 'hardware' : 'software', false, null, description, 0);
  else if (level === HW) type = replayType(name, NODE_DOWN, 'node', 'hardware', false, null, description, 0);
  else type = replayType(name, CRASH, 'node', 'software', false, null, description, 0);
  mappingByKey.set(key, type);
  return type;
}

/** How a trace is laid onto the simulated clock and cluster. */
export interface ReplayOptions {
  /** Simulated seconds per trace second (< 1 compresses the trace); scales times and repairs alike. */
  readonly timeScale: number;
  /** Simulated time of the trace's time 0, in seconds. */
  readonly startS: number;
  /** Seed of the node mapping and of the GPU each GPU-scope fault hits. */
  readonly seed: number;
}

/**
 * Which cluster node each trace node id replays on: the distinct ids, sorted, take the nodes of a
 * seeded permutation of the cluster's GPU nodes (all nodes when none has a GPU) in order. With
 * more trace nodes than cluster nodes the permutation wraps, so several trace nodes share a
 * cluster node (their faults may then overlap on it). Throws ConfigError when the cluster has no
 * nodes and the trace has any.
 */
export function traceNodeMapping(nodeIds: Iterable<string>, cluster: ClusterSpec, seed: number): Map<string, number> {
  const ids = [...new Set(nodeIds)].sort();
  const mapping = new Map<string, number>();
  if (ids.length === 0) return mapping;
  const gpuNodes = cluster.nodes.flatMap((node, k) => (node.gpus > 0 ? [k] : []));
  const candidates = gpuNodes.length > 0 ? gpuNodes : cluster.nodes.map((_, k) => k);
  if (candidates.length === 0) throw new ConfigError('cluster', 'has no nodes to replay the fault trace on');
  const stream = new RandomStreams(seed).stream('fault-replay-nodes');
  for (let i = candidates.length - 1; i > 0; i--) {
    const j = stream.int(i + 1);
    [candidates[i], candidates[j]] = [candidates[j]!, candidates[i]!];
  }
  ids.forEach((id, i) => mapping.set(id, candidates[i % candidates.length]!));
  return mapping;
}

/**
 * The faults of a trace as occurrences on `cluster`: node ids mapped by traceNodeMapping; time =
 * startS + startDays x 86,400 x timeScale; repairS = (end - start) in the same scaled seconds for
 * effects that take hardware down, 0 for the others (crash, hang, silent corruption need no
 * repair, as in the catalogs; the trace's duration stays on the TraceFault);
 * types by infiniteHbdFaultType; GPU- and job-scope faults hit a GPU of their node chosen by a draw
 * keyed by seed and the fault's trace index (so it does not depend on which other faults are
 * replayed). Sorted by time, ties by node index, then trace index.
 */
export function replayOccurrences(faults: readonly TraceFault[], cluster: ClusterSpec, options: ReplayOptions): FaultOccurrence[] {
  if (!Number.isFinite(options.timeScale) || options.timeScale <= 0) throw new ConfigError('timeScale', `must be a positive number, got ${options.timeScale}`);
  if (!Number.isFinite(options.startS)) throw new ConfigError('startS', `must be a finite number, got ${options.startS}`);
  const nodeOf = traceNodeMapping(
    faults.map((f) => f.nodeId),
    cluster,
    options.seed,
  );
  const secondsPerDay = SECONDS_PER_DAY * options.timeScale;
  const replayed = faults.map((fault) => {
    const nodeIndex = nodeOf.get(fault.nodeId)!;
    const type = infiniteHbdFaultType(fault.level, fault.faultClass, fault.desc);
    const gpus = cluster.nodes[nodeIndex]!.gpus;
    const namesGpu = (type.scope === 'gpu' || type.scope === 'job') && gpus > 0;
    const occurrence: FaultOccurrence = {
      timeS: options.startS + fault.startDays * secondsPerDay,
      type,
      nodeIndex,
      gpuIndex: namesGpu ? new RandomStream(`dlsim:${options.seed}:fault-replay-gpu:${fault.index}`).int(gpus) : null,
      repairS: takesHardwareDown(type.effect) ? (fault.endDays - fault.startDays) * secondsPerDay : 0,
    };
    return { occurrence, index: fault.index };
  });
  replayed.sort((a, b) => a.occurrence.timeS - b.occurrence.timeS || a.occurrence.nodeIndex - b.occurrence.nodeIndex || a.index - b.index);
  return replayed.map((r) => r.occurrence);
}
