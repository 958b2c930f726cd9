import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { applySet, assignmentPath } from '../../src/scenario/overrides.js';

const base = () => ({
  seed: 1,
  cluster: { nodes: [{ group: 'a', count: 2, gpus: 8 }, { group: 'b', count: 1 }] },
  workload: { synthetic: { jobs: 10 } },
});

function setError(raw: unknown, assignment: string): ConfigError {
  try {
    applySet(raw, assignment);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`applySet(${assignment}) did not throw`);
}

describe('applySet', () => {
  it('sets a top-level number', () => {
    expect(applySet(base(), 'seed=3')).toMatchObject({ seed: 3 });
  });

  it('sets through a bracketed index and a dotted index alike', () => {
    const bracketed = applySet(base(), 'cluster.nodes[0].count=16') as ReturnType<typeof base>;
    const dotted = applySet(base(), 'cluster.nodes.1.count=16') as ReturnType<typeof base>;
    expect(bracketed.cluster.nodes[0]!.count).toBe(16);
    expect(bracketed.cluster.nodes[1]!.count).toBe(1);
    expect(dotted.cluster.nodes[1]!.count).toBe(16);
  });

  it('parses values as YAML scalars and flow collections', () => {
    const raw = base();
    expect(applySet(raw, 'workload.synthetic.jobs=50')).toMatchObject({ workload: { synthetic: { jobs: 50 } } });
    expect(applySet(raw, 'x=2h')).toMatchObject({ x: '2h' });
    expect(applySet(raw, 'x=[A100, H100]')).toMatchObject({ x: ['A100', 'H100'] });
    expect(applySet(raw, 'x={1: 0.5, 8: 0.5}')).toMatchObject({ x: { 1: 0.5, 8: 0.5 } });
    expect(applySet(raw, 'x=true')).toMatchObject({ x: true });
    expect(applySet(raw, 'x="16"')).toMatchObject({ x: '16' });
    expect(applySet(raw, 'x=a=b')).toMatchObject({ x: 'a=b' });
  });

  it('creates missing intermediate mappings', () => {
    expect(applySet(base(), 'sim.horizon=30d')).toMatchObject({ sim: { horizon: '30d' } });
    expect(applySet({ sim: null }, 'sim.horizon=1h')).toEqual({ sim: { horizon: '1h' } });
    expect(applySet(null, 'a.b.c=1')).toEqual({ a: { b: { c: 1 } } });
  });

  it('adds a new key to an existing mapping without touching its siblings', () => {
    const result = applySet(base(), 'cluster.nodes[1].gpuType=A100') as ReturnType<typeof base>;
    expect(result.cluster.nodes[1]).toEqual({ group: 'b', count: 1, gpuType: 'A100' });
  });

  it('replaces a whole list item', () => {
    const result = applySet(base(), 'cluster.nodes[1]={group: c, count: 4}') as ReturnType<typeof base>;
    expect(result.cluster.nodes[1]).toEqual({ group: 'c', count: 4 });
  });

  it('does not modify its input', () => {
    const raw = base();
    applySet(raw, 'cluster.nodes[0].count=16');
    expect(raw).toEqual(base());
  });

  it.each([
    ['seed', 'expected path=value'],
    ['=3', 'expected path=value'],
    ['a..b=1', 'expected path=value'],
    ['a.=1', 'expected path=value'],
    ['a[x]=1', 'expected path=value'],
  ])('rejects the malformed assignment %j', (assignment, reason) => {
    const error = setError(base(), assignment);
    expect(error.where).toBe(`--set ${assignment}`);
    expect(error.reason).toContain(reason);
  });

  it('rejects walking into a scalar', () => {
    const error = setError(base(), 'seed.value=3');
    expect(error.message).toBe('--set seed.value=3: cannot set inside seed: it is the number 1');
  });

  it('rejects an index out of range', () => {
    const error = setError(base(), 'cluster.nodes[2].count=1');
    expect(error.message).toBe('--set cluster.nodes[2].count=1: index 2 is out of range: cluster.nodes has 2 item(s)');
  });

  it('rejects an index into a mapping and a key into a list', () => {
    expect(setError(base(), 'cluster[0]=1').message).toBe('--set cluster[0]=1: cluster is not a list, so [0] does not apply');
    expect(setError(base(), 'cluster.nodes.first=1').message).toBe(
      '--set cluster.nodes.first=1: cluster.nodes is a list: expected an index, not "first"',
    );
  });

  it('rejects an index into a list that does not exist', () => {
    expect(setError(base(), 'workload.jobs[0].gpus=1').message).toBe(
      '--set workload.jobs[0].gpus=1: index 0 is out of range: workload.jobs does not exist',
    );
  });

  it('rejects a value that is not valid YAML', () => {
    const error = setError(base(), 'x=[A100');
    expect(error.where).toBe('--set x=[A100');
    expect(error.reason).toMatch(/^the value is not valid YAML: /);
    expect(error.message).not.toContain('\n');
  });
});

describe('assignmentPath', () => {
  it('lists the segments of both index spellings', () => {
    expect(assignmentPath('cluster.nodes[0].count=16')).toEqual(['cluster', 'nodes', '0', 'count']);
    expect(assignmentPath('cluster.nodes.0.count=16')).toEqual(['cluster', 'nodes', '0', 'count']);
    expect(assignmentPath('a[1][2]=x')).toEqual(['a', '1', '2']);
  });
});
