import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { podName, psServiceOf, type PodMeta, type ScalePlanRecord } from '../../src/model/scale-plan.js';
import { isScalePlanFileName, scalePlanFiles, scalePlanName, scalePlanYaml, staleScalePlanFiles } from '../../src/report/scale-plans.js';

const PS0 = psServiceOf(podName('deepctr-auto-job', 'ps', 0));

/** The seed's plan: 4 workers of 1 CPU and 4170 MiB, one PS. */
function seedPlan(overrides: Partial<ScalePlanRecord> = {}): ScalePlanRecord {
  return {
    ownerJob: 'deepctr-auto-job',
    seq: 2,
    atS: 180,
    reason: 'add 3 workers: PS CPU headroom',
    replicaResourceSpecs: { worker: { replicas: 4, resource: { cpuMilli: 1000, memMiB: 4170 } } },
    createPods: [],
    removePods: [],
    migratePods: [],
    psHosts: [PS0],
    ...overrides,
  };
}

function pod(role: 'ps' | 'worker', id: number, cpuMilli: number, memMiB: number): PodMeta {
  const name = podName('deepctr-auto-job', role, id);
  return { name, id, type: role, rankIndex: id, service: role === 'ps' ? psServiceOf(name) : '', resource: { cpuMilli, memMiB } };
}

describe('ScalePlan YAML', () => {
  it("parses back to the seed's ScalePlan", () => {
    expect(parse(scalePlanYaml(seedPlan()))).toEqual({
      apiVersion: 'elastic.iml.github.io/v1alpha1',
      kind: 'ScalePlan',
      metadata: { labels: { 'elasticjob-name': 'deepctr-auto-job', 'scale-type': 'auto' }, name: 'deepctr-auto-job-scaleplan-2' },
      spec: {
        createPods: [],
        ownerJob: 'deepctr-auto-job',
        psHosts: ['deepctr-auto-job-edljob-ps-0.dlrover.svc:2222'],
        removePods: [],
        replicaResourceSpecs: { worker: { replicas: 4, resource: { cpu: '1', memory: '4170Mi' } } },
      },
    });
  });

  it("keeps the seed's key order, with the time and reason as a comment", () => {
    const text = scalePlanYaml(seedPlan());
    expect(text).toBe(
      [
        '# made at 180 s of simulated time: add 3 workers: PS CPU headroom',
        '',
        'apiVersion: elastic.iml.github.io/v1alpha1',
        'kind: ScalePlan',
        'metadata:',
        '  labels:',
        '    elasticjob-name: deepctr-auto-job',
        '    scale-type: auto',
        '  name: deepctr-auto-job-scaleplan-2',
        'spec:',
        '  createPods: []',
        '  ownerJob: deepctr-auto-job',
        '  psHosts:',
        '  - deepctr-auto-job-edljob-ps-0.dlrover.svc:2222',
        '  removePods: []',
        '  replicaResourceSpecs:',
        '    worker:',
        '      replicas: 4',
        '      resource:',
        '        cpu: "1"',
        '        memory: 4170Mi',
        '',
      ].join('\n'),
    );
  });

  it('writes pods as PodMeta with quantities, roles in order, and migratePods only when pods move', () => {
    const plan = seedPlan({
      replicaResourceSpecs: {
        worker: { replicas: 2, resource: { cpuMilli: 1500, memMiB: 8192 } },
        ps: { replicas: 2, resource: { cpuMilli: 500, memMiB: 3072.4 } },
      },
      createPods: [pod('ps', 1, 500, 3072)],
      removePods: [pod('worker', 3, 1000, 4170)],
      psHosts: [PS0, psServiceOf(podName('deepctr-auto-job', 'ps', 1))],
    });
    const doc = parse(scalePlanYaml(plan)) as { spec: Record<string, unknown> };
    expect(Object.keys(doc.spec)).toEqual(['createPods', 'ownerJob', 'psHosts', 'removePods', 'replicaResourceSpecs']);
    expect(doc.spec.replicaResourceSpecs).toEqual({
      ps: { replicas: 2, resource: { cpu: '500m', memory: '3073Mi' } },
      worker: { replicas: 2, resource: { cpu: '1500m', memory: '8Gi' } },
    });
    expect(doc.spec.createPods).toEqual([
      {
        name: 'deepctr-auto-job-edljob-ps-1',
        id: 1,
        type: 'ps',
        rankIndex: 1,
        service: 'deepctr-auto-job-edljob-ps-1.dlrover.svc:2222',
        resource: { cpu: '500m', memory: '3Gi' },
      },
    ]);
    expect(doc.spec.removePods).toEqual([
      { name: 'deepctr-auto-job-edljob-worker-3', id: 3, type: 'worker', rankIndex: 3, service: '', resource: { cpu: '1', memory: '4170Mi' } },
    ]);
    const moved = parse(scalePlanYaml(seedPlan({ migratePods: [pod('ps', 0, 16_000, 8192)] }))) as { spec: Record<string, unknown> };
    expect(Object.keys(moved.spec)).toEqual(['createPods', 'migratePods', 'ownerJob', 'psHosts', 'removePods', 'replicaResourceSpecs']);
    expect((moved.spec.migratePods as { resource: unknown }[])[0]!.resource).toEqual({ cpu: '16', memory: '8Gi' });
  });

  it('keeps a reason with line breaks on one comment line', () => {
    const text = scalePlanYaml(seedPlan({ reason: 'first\nsecond' }));
    expect(text.split('\n')[0]).toBe('# made at 180 s of simulated time: first\\nsecond');
    expect(parse(text)).toEqual(parse(scalePlanYaml(seedPlan())));
  });
});

describe('ScalePlan files', () => {
  it('writes one scaleplans/<job>-scaleplan-<seq>.yaml per plan, in order', () => {
    const plans = [seedPlan({ seq: 0 }), seedPlan({ seq: 1 }), seedPlan({ ownerJob: 'other', seq: 0, psHosts: [] })];
    const files = scalePlanFiles(plans);
    expect(files.map(([path]) => path)).toEqual([
      'scaleplans/deepctr-auto-job-scaleplan-0.yaml',
      'scaleplans/deepctr-auto-job-scaleplan-1.yaml',
      'scaleplans/other-scaleplan-0.yaml',
    ]);
    expect(files[2]![1]).toBe(scalePlanYaml(plans[2]!));
    expect(scalePlanName(plans[2]!)).toBe('other-scaleplan-0');
    expect(scalePlanFiles([])).toEqual([]);
  });

  it('keeps a job id with path characters inside the folder, and names clashing files apart', () => {
    const files = scalePlanFiles([seedPlan({ ownerJob: '../x/y', seq: 0 }), seedPlan({ ownerJob: '.._x_y', seq: 0 })]);
    expect(files.map(([path]) => path)).toEqual(['scaleplans/_._x_y-scaleplan-0.yaml', 'scaleplans/_._x_y-scaleplan-0-2.yaml']);
    // The plan itself keeps the job's real name.
    expect((parse(files[0]![1]) as { spec: { ownerJob: string } }).spec.ownerJob).toBe('../x/y');
    expect(files.every(([path]) => isScalePlanFileName(path.slice('scaleplans/'.length)))).toBe(true);
  });

  it("finds an earlier run's plan files that this run does not rewrite, and nothing else", () => {
    const out = mkdtempSync(join(tmpdir(), 'dlsim-plans-'));
    expect(staleScalePlanFiles(out, [])).toEqual([]);
    mkdirSync(join(out, 'scaleplans'));
    for (const name of ['a-scaleplan-0.yaml', 'a-scaleplan-1.yaml', 'a-scaleplan-1-2.yaml', 'notes.yaml', 'a-scaleplan-x.yaml']) {
      writeFileSync(join(out, 'scaleplans', name), 'x\n');
    }
    mkdirSync(join(out, 'scaleplans', 'b-scaleplan-0.yaml'));
    expect(staleScalePlanFiles(out, ['scaleplans/a-scaleplan-0.yaml'])).toEqual(['scaleplans/a-scaleplan-1-2.yaml', 'scaleplans/a-scaleplan-1.yaml']);
  });
});
