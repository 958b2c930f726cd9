import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, TraceError } from '../../src/errors.js';
import { INFINITE_HBD_SERVERS, infiniteHbdFaultType, infiniteHbdTypes, readFaultTrace, replayOccurrences, traceNodeMapping, type TraceFault } from '../../src/faults/trace-replay.js';
import type { ClusterSpec } from '../../src/model/cluster-spec.js';
import { gpuCluster } from '../helpers.js';
import { sharedTrace } from '../shared-traces.js';

const DAY_S = 86_400;

interface RawEvent {
  node_id: string;
  event_time: number;
  event_type: 'fault_start' | 'fault_end';
  fault_type: { Level: string; Class: string; Desc: string };
}

function event(nodeId: string, days: number, kind: 'start' | 'end', desc = 'Link Down', cls = 'Parameter Plane Cable', level = 'Hardware Failure'): RawEvent {
  return { node_id: nodeId, event_time: days, event_type: kind === 'start' ? 'fault_start' : 'fault_end', fault_type: { Level: level, Class: cls, Desc: desc } };
}

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dlsim-fault-trace-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function traceFile(name: string, content: unknown): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

async function traceError(promise: Promise<unknown>): Promise<TraceError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TraceError);
  return error as TraceError;
}

describe('readFaultTrace on small files', () => {
  it('pairs start and end per node and fault type, first in first out', async () => {
    const file = await traceFile('pairs.json', [
      event('a', 1, 'start'),
      event('b', 1.5, 'start', 'Fan', 'Fan', 'Hardware Failure'),
      event('a', 2, 'start'), // the same node and type again while the first is open
      event('a', 2, 'start', 'NIC Lost', 'NIC'),
      event('a', 3, 'end'),
      event('a', 4, 'end', 'NIC Lost', 'NIC'),
      event('b', 4, 'end', 'Fan', 'Fan', 'Hardware Failure'),
      event('a', 5, 'end'),
    ]);
    const faults = await readFaultTrace(file);
    expect(faults.map((f) => [f.nodeId, f.desc, f.startDays, f.endDays, f.index])).toEqual([
      ['a', 'Link Down', 1, 3, 0],
      ['b', 'Fan', 1.5, 4, 1],
      ['a', 'Link Down', 2, 5, 2],
      ['a', 'NIC Lost', 2, 4, 3],
    ]);
    expect(faults.every((f) => !f.openEnded)).toBe(true);
  });

  it('lets a start without an end last to the end of the trace, and flags it', async () => {
    const file = await traceFile('open.json', [event('a', 1, 'start'), event('b', 2, 'start'), event('b', 3, 'end'), event('c', 7.5, 'start', 'Fan', 'Fan')]);
    const faults = await readFaultTrace(file);
    expect(faults.map((f) => [f.nodeId, f.endDays, f.openEnded])).toEqual([
      ['a', 7.5, true],
      ['b', 3, false],
      ['c', 7.5, true],
    ]);
  });

  it('reports bad events as TraceErrors at their array index', async () => {
    const unmatched = await traceError(readFaultTrace(await traceFile('unmatched.json', [event('a', 1, 'start'), event('b', 2, 'end')])));
    expect([unmatched.line, unmatched.column]).toEqual([1, 'event_type']);
    const unsorted = await traceError(readFaultTrace(await traceFile('unsorted.json', [event('a', 2, 'start'), event('a', 3, 'end'), event('b', 1, 'start')])));
    expect([unsorted.line, unsorted.column, unsorted.reason]).toEqual([2, 'event_time', 'not sorted by time']);
    const badKind = await traceError(readFaultTrace(await traceFile('kind.json', [{ ...event('a', 1, 'start'), event_type: 'fault_middle' }])));
    expect([badKind.line, badKind.column]).toEqual([0, 'event_type']);
    const noDesc = await traceError(readFaultTrace(await traceFile('desc.json', [event('a', 1, 'start'), { node_id: 'a', event_time: 2, event_type: 'fault_end', fault_type: { Level: 'x', Class: 'y' } }])));
    expect([noDesc.line, noDesc.column]).toEqual([1, 'fault_type.Desc']);
    const badTime = await traceError(readFaultTrace(await traceFile('time.json', [{ ...event('a', 1, 'start'), event_time: '1' }])));
    expect([badTime.line, badTime.column, badTime.reason]).toEqual([0, 'event_time', 'not a number']);
    const notArray = await traceError(readFaultTrace(await traceFile('object.json', { events: [] })));
    expect([notArray.column, notArray.reason]).toEqual(['file', 'not a JSON array']);
    const notJson = await traceError(readFaultTrace(await traceFile('broken.json', '[{"node_id": ')));
    expect(notJson.reason).toBe('not valid JSON');
    await expect(readFaultTrace(join(dir, 'missing.json'))).rejects.toThrow(ConfigError);
  });
});

function fault(nodeId: string, index: number, startDays: number, endDays: number, desc = 'Link Down', faultClass = 'Parameter Plane Cable', level = 'Hardware Failure'): TraceFault {
  return { nodeId, level, faultClass, desc, startDays, endDays, openEnded: false, index };
}

describe('replayOccurrences', () => {
  const cluster = gpuCluster(10, 8);
  const faults = [
    fault('n-b', 0, 1, 1.5),
    fault('n-a', 1, 1, 3, 'GPU DBE(Double Bit ECC) > Threshold', 'GPU'),
    fault('n-c', 2, 2.25, 2.25, 'Speed Critical (Sensor)', 'Fan'),
    fault('n-a', 3, 4, 6, 'Unknown Error', 'Unknown Error', 'Other Failure'),
  ];

  it('converts days to seconds x timeScale from startS, repair = end - start, sorted by time then node', () => {
    const occurrences = replayOccurrences(faults, cluster, { timeScale: 0.5, startS: 100, seed: 1 });
    expect(occurrences.map((o) => [o.timeS, o.repairS, o.type.name])).toHaveLength(4);
    const byType = new Map(occurrences.map((o) => [o.type.name, o]));
    expect(byType.get('hbd-link-down')!).toMatchObject({ timeS: 100 + DAY_S * 0.5, repairS: 0.5 * DAY_S * 0.5, gpuIndex: null });
    expect(byType.get('hbd-gpu-dbe')!).toMatchObject({ timeS: 100 + DAY_S * 0.5, repairS: 2 * DAY_S * 0.5 });
    expect(byType.get('hbd-fan-speed')!).toMatchObject({ timeS: 100 + 2.25 * DAY_S * 0.5, repairS: 0, gpuIndex: null });
    // A crash needs no repair: the trace's 2 days out of service stay on the TraceFault.
    expect(byType.get('hbd-unknown')!).toMatchObject({ timeS: 100 + 4 * DAY_S * 0.5, repairS: 0, gpuIndex: null, type: { effect: { kind: 'crash' } } });
    const gpu = byType.get('hbd-gpu-dbe')!.gpuIndex;
    expect(gpu).not.toBeNull();
    expect(gpu!).toBeGreaterThanOrEqual(0);
    expect(gpu!).toBeLessThan(8);
    for (let i = 1; i < occurrences.length; i++) {
      const [a, b] = [occurrences[i - 1]!, occurrences[i]!];
      expect(a.timeS < b.timeS || (a.timeS === b.timeS && a.nodeIndex < b.nodeIndex)).toBe(true);
    }
    // Both faults of trace node n-a land on the same cluster node.
    expect(byType.get('hbd-gpu-dbe')!.nodeIndex).toBe(byType.get('hbd-unknown')!.nodeIndex);
  });

  it('maps trace nodes deterministically per seed, differently for another seed, onto distinct GPU nodes', () => {
    const ids = Array.from({ length: 20 }, (_, i) => `id-${String(i).padStart(2, '0')}`);
    const big = gpuCluster(64, 8);
    const one = traceNodeMapping(ids, big, 1);
    expect(traceNodeMapping([...ids].reverse(), big, 1)).toEqual(one); // order of appearance does not matter
    expect(traceNodeMapping(ids, big, 2)).not.toEqual(one);
    expect(new Set(one.values()).size).toBe(20);
    // CPU nodes never take a trace node while GPU nodes exist.
    const mixed: ClusterSpec = { nodes: [...gpuCluster(3).nodes, { ...gpuCluster(1).nodes[0]!, name: 'cpu', gpus: 0, gpuType: null }] };
    expect([...traceNodeMapping(ids, mixed, 1).values()].every((k) => k !== 3)).toBe(true);
  });

  it('wraps when the trace has more nodes than the cluster', () => {
    const ids = ['a', 'b', 'c', 'd', 'e'];
    const mapping = traceNodeMapping(ids, gpuCluster(2), 3);
    const nodes = ids.map((id) => mapping.get(id)!);
    expect(new Set(nodes)).toEqual(new Set([0, 1]));
    expect(nodes).toEqual([nodes[0], nodes[1], nodes[0], nodes[1], nodes[0]]);
  });

  it('chooses the GPU of a GPU-scope fault by a keyed draw: the same whatever else is replayed', () => {
    const many = Array.from({ length: 40 }, (_, i) => fault('n-a', i, i, i + 0.5, 'GPU Lost', 'GPU'));
    const all = replayOccurrences(many, cluster, { timeScale: 1, startS: 0, seed: 4 });
    const some = replayOccurrences(many.filter((f) => f.index % 3 === 0), cluster, { timeScale: 1, startS: 0, seed: 4 });
    expect(some.map((o) => o.gpuIndex)).toEqual(all.filter((_, i) => i % 3 === 0).map((o) => o.gpuIndex));
    expect(new Set(all.map((o) => o.gpuIndex)).size).toBeGreaterThan(4);
    const otherSeed = replayOccurrences(many, cluster, { timeScale: 1, startS: 0, seed: 5 });
    expect(otherSeed.map((o) => o.gpuIndex)).not.toEqual(all.map((o) => o.gpuIndex));
  });

  it('rejects a non-positive timeScale and an empty cluster', () => {
    expect(() => replayOccurrences(faults, cluster, { timeScale: 0, startS: 0, seed: 1 })).toThrow(ConfigError);
    expect(() => replayOccurrences(faults, { nodes: [] }, { timeScale: 1, startS: 0, seed: 1 })).toThrow(ConfigError);
    expect(replayOccurrences([], { nodes: [] }, { timeScale: 1, startS: 0, seed: 1 })).toEqual([]);
  });
});

describe('infiniteHbdTypes', () => {
  const typeOf = (cls: string, desc: string, level = 'Hardware Failure') => infiniteHbdFaultType(level, cls, desc);

  it('follows REFERENCE §7 and the documented decisions', () => {
    expect(typeOf('GPU', 'GPU DBE(Double Bit ECC) > Threshold')).toMatchObject({ effect: { kind: 'gpu-down' }, scope: 'gpu', xid: 48 });
    expect(typeOf('Parameter Plane Cable', 'Link Down').effect).toEqual({ kind: 'network-down' });
    for (const desc of ['NIC Link Speed low', 'NIC Lost', 'NIC PCI link Width low', 'Rnic Gid Error']) expect(typeOf('NIC', desc).effect).toEqual({ kind: 'network-down' });
    expect(typeOf('Fan', 'Speed Critical (Sensor)').effect).toEqual({ kind: 'node-down' });
    expect(typeOf('Power Supply', 'Power Supply Failure detected').effect).toEqual({ kind: 'node-down' });
    expect(typeOf('Unknown Error', 'Unknown Error', 'Other Failure').effect).toEqual({ kind: 'crash' });
    expect(typeOf('Other Failures', 'Unknown Error', 'Software Failure').effect).toEqual({ kind: 'crash' });
    expect(typeOf('GPU', 'GPU PCI link width low').effect).toEqual({ kind: 'slowdown', factor: 0.5 });
    expect(typeOf('GPU', 'Silent Data Corruption').effect).toEqual({ kind: 'silent-corruption' });
    expect(typeOf('GPU', 'nvidia-smi Timeout').effect).toEqual({ kind: 'hang' });
  });

  it('has one distinct, named type per entry that keeps the catalog invariants, and a stable fallback for unknown combinations', () => {
    expect(infiniteHbdTypes).toHaveLength(40);
    expect(new Set(infiniteHbdTypes.map((m) => m.type.name)).size).toBe(40);
    expect(new Set(infiniteHbdTypes.map((m) => JSON.stringify([m.level, m.faultClass, m.desc]))).size).toBe(40);
    expect(infiniteHbdTypes.reduce((sum, m) => sum + m.traceStarts, 0)).toBe(584);
    for (const { type, traceStarts } of infiniteHbdTypes) {
      expect(type.description.length).toBeGreaterThan(10);
      expect(type.name).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(type.ratePerGpuDay).toBe(0);
      expect(type.ratePerNodeDay).toBeCloseTo(traceStarts / (INFINITE_HBD_SERVERS * 348), 12);
      const needsNoRepair = ['crash', 'hang', 'silent-corruption'].includes(type.effect.kind);
      expect(type.repair.kind === 'none', type.name).toBe(needsNoRepair);
      if (type.effect.kind === 'gpu-down') expect(type.scope).toBe('gpu');
      if (type.effect.kind === 'node-down') expect(type.scope).toBe('node');
      if (type.effect.kind === 'network-down') expect(['link', 'node']).toContain(type.scope);
    }
    const fallback = typeOf('GPU', 'Some New GPU Thing');
    expect(fallback).toBe(typeOf('GPU', 'Some New GPU Thing'));
    expect(fallback).toMatchObject({ name: 'hbd-other-hardware-failure-gpu-some-new-gpu-thing', effect: { kind: 'gpu-down' } });
    expect(typeOf('Chassis', 'Door Open').effect).toEqual({ kind: 'node-down' });
    expect(typeOf('Mystery', 'Odd', 'Other Failure').effect).toEqual({ kind: 'crash' });
  });
});

const realTrace = sharedTrace('infinitehbd-faults/fault_trace.json');

/** Starts per Level/Class/Desc, per Level/Class and per Level, as fault_statistics.json counts them. */
type Statistics = Record<string, Record<string, number | Record<string, number>>>;

describe.skipIf(realTrace === null)('the real InfiniteHBD trace', () => {
  let faults: TraceFault[] = [];
  let statistics: Statistics = {};
  let events: RawEvent[] = [];
  beforeAll(async () => {
    faults = await readFaultTrace(realTrace!);
    statistics = JSON.parse(await readFile(join(dirname(realTrace!), 'fault_statistics.json'), 'utf8')) as Statistics;
    events = JSON.parse(await readFile(realTrace!, 'utf8')) as RawEvent[];
  });

  it('pairs all 584 faults (none open-ended) on 231 of its 400 servers over 348 days', () => {
    expect(faults).toHaveLength(584);
    expect(faults.filter((f) => f.openEnded)).toHaveLength(0);
    expect(new Set(faults.map((f) => f.nodeId)).size).toBe(231);
    expect(INFINITE_HBD_SERVERS).toBe(400);
    expect(Math.max(...faults.map((f) => f.endDays))).toBeCloseTo(348.98, 2);
  });

  it('reproduces fault_statistics.json: starts per Level, Class and Desc', () => {
    const count = (pred: (f: TraceFault) => boolean): number => faults.filter(pred).length;
    let checked = 0;
    for (const [level, classes] of Object.entries(statistics)) {
      for (const [cls, descs] of Object.entries(classes)) {
        if (cls === 'LevelTotal') {
          expect(count((f) => f.level === level), level).toBe(descs);
          continue;
        }
        for (const [desc, n] of Object.entries(descs as Record<string, number>)) {
          if (desc === 'ClassTotal') expect(count((f) => f.level === level && f.faultClass === cls), `${level}/${cls}`).toBe(n);
          else {
            expect(count((f) => f.level === level && f.faultClass === cls && f.desc === desc), `${level}/${cls}/${desc}`).toBe(n);
            checked += n;
          }
        }
      }
    }
    expect(checked).toBe(584); // every fault is in some Desc count
  });

  it('maps every Level/Class/Desc it holds through the table (no fallback), whose counts are the trace counts', () => {
    const table = new Set(infiniteHbdTypes.map((m) => JSON.stringify([m.level, m.faultClass, m.desc])));
    const inTrace = new Set(faults.map((f) => JSON.stringify([f.level, f.faultClass, f.desc])));
    expect([...inTrace].filter((k) => !table.has(k))).toEqual([]);
    expect(inTrace.size).toBe(40);
    for (const m of infiniteHbdTypes) {
      expect(faults.filter((f) => f.level === m.level && f.faultClass === m.faultClass && f.desc === m.desc).length, m.type.name).toBe(m.traceStarts);
    }
  });

  it('has durations end - start, matching its events', () => {
    for (const f of faults) {
      const start = events[f.index]!;
      expect(start).toMatchObject({ node_id: f.nodeId, event_type: 'fault_start', event_time: f.startDays });
      expect(f.endDays).toBeGreaterThanOrEqual(f.startDays);
    }
    // Total out-of-service time: the sum of end times minus the sum of start times over all events.
    const sum = (kind: string) => events.filter((e) => e.event_type === kind).reduce((s, e) => s + e.event_time, 0);
    const totalDays = faults.reduce((s, f) => s + (f.endDays - f.startDays), 0);
    expect(totalDays).toBeCloseTo(sum('fault_end') - sum('fault_start'), 6);
    // Replayed repairs are end - start for faults that take hardware down, 0 for the rest.
    const occurrences = replayOccurrences(faults, gpuCluster(INFINITE_HBD_SERVERS, 8), { timeScale: 1, startS: 0, seed: 1 });
    const needsNoRepair = (f: TraceFault) => ['crash', 'hang', 'silent-corruption'].includes(infiniteHbdFaultType(f.level, f.faultClass, f.desc).effect.kind);
    const hardwareDays = faults.filter((f) => !needsNoRepair(f)).reduce((s, f) => s + (f.endDays - f.startDays), 0);
    expect(hardwareDays).toBeGreaterThan(0);
    expect(hardwareDays).toBeLessThan(totalDays);
    expect(occurrences.reduce((s, o) => s + o.repairS, 0)).toBeCloseTo(hardwareDays * DAY_S, 0);
  });

  it('replays onto a 400-node cluster: 231 distinct nodes, deterministic per seed, different for another', () => {
    const cluster = gpuCluster(INFINITE_HBD_SERVERS, 8);
    const one = replayOccurrences(faults, cluster, { timeScale: 1, startS: 0, seed: 1 });
    expect(one).toHaveLength(584);
    expect(new Set(one.map((o) => o.nodeIndex)).size).toBe(231);
    expect(replayOccurrences(faults, cluster, { timeScale: 1, startS: 0, seed: 1 })).toEqual(one);
    const two = replayOccurrences(faults, cluster, { timeScale: 1, startS: 0, seed: 2 });
    expect(two.map((o) => o.nodeIndex)).not.toEqual(one.map((o) => o.nodeIndex));
    expect(two.map((o) => o.timeS)).toEqual(one.map((o) => o.timeS));
    for (let i = 1; i < one.length; i++) expect(one[i]!.timeS).toBeGreaterThanOrEqual(one[i - 1]!.timeS);
    const effects = new Map<string, number>();
    for (const o of one) effects.set(o.type.effect.kind, (effects.get(o.type.effect.kind) ?? 0) + 1);
    // GPU DBE 60 + xid 11 + lost 5 + unknown 40 + SBE 1 + not found 1
    expect(effects.get('gpu-down')).toBe(118);
  });
});
