import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ROOT, dlsim } from '../cli-run.js';

const MANIFEST = join(ROOT, 'test/workload/formats/elastic-jobs/ctr-autoscale.yaml');

/** The seed's auto-scaling experiment, submitted as DLRover's autoscale example ElasticJob (no sizes given). */
const SCENARIO = `cluster:
  nodes:
    - {group: cpu, count: 4, cpuCores: 32, memGiB: 128}
policy: dlrover
workload:
  elasticJobs:
    - manifest: jobs/ctr-autoscale.yaml
      user: alice
      dataset: criteo
      steps: 100000
      model:
        speed: {t0: 0.033, t1: 0.00033, t2: 0, t3: 0}
        psTruth: {variableSizes: [1], psMemBaseGiB: 1, workerMemGiB: 2, workerCpuCores: 3, psCpuCores: 3}
`;

interface ScalePlanDoc {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels: Record<string, string> };
  spec: {
    ownerJob: string;
    replicaResourceSpecs: Record<string, { replicas: number; resource: { cpu: string; memory: string } }>;
    createPods: { name: string; type: string }[];
    removePods: unknown[];
    psHosts: string[];
  };
}

describe('dlsim run on an auto-scaled ElasticJob', () => {
  it('writes the brain plans as ScalePlan files under scaleplans/, one per plan, named by job and number', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dlsim-elastic-e2e-'));
    mkdirSync(join(dir, 'jobs'));
    copyFileSync(MANIFEST, join(dir, 'jobs', 'ctr-autoscale.yaml'));
    writeFileSync(join(dir, 'scenario.yaml'), SCENARIO);
    const out = join(dir, 'out');
    const result = dlsim('run', join(dir, 'scenario.yaml'), '--out', out, '--json');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).jobs).toMatchObject({ submitted: 1, completed: 1 });
    expect(existsSync(join(out, 'summary.json'))).toBe(true);

    const names = readdirSync(join(out, 'scaleplans')).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
    expect(names.length).toBeGreaterThanOrEqual(2);
    const plans = names.map((name, seq) => {
      expect(name).toBe(`ctr-autoscale-scaleplan-${seq}.yaml`);
      const plan = parse(readFileSync(join(out, 'scaleplans', name), 'utf8')) as ScalePlanDoc;
      expect(plan).toMatchObject({
        apiVersion: 'elastic.iml.github.io/v1alpha1',
        kind: 'ScalePlan',
        metadata: { name: `ctr-autoscale-scaleplan-${seq}`, labels: { 'elasticjob-name': 'ctr-autoscale', 'scale-type': 'auto' } },
        spec: { ownerJob: 'ctr-autoscale' },
      });
      for (const spec of Object.values(plan.spec.replicaResourceSpecs)) {
        expect(spec.resource.cpu).toMatch(/^(\d+|\d+m)$/);
        expect(spec.resource.memory).toMatch(/^\d+(Gi|Mi)$/);
      }
      return plan;
    });
    // The create plan sizes the PS and the chief the manifest left out; a later plan adds workers by name.
    expect(Object.keys(plans[0]!.spec.replicaResourceSpecs)).toEqual(expect.arrayContaining(['ps', 'chief']));
    const added = plans.flatMap((plan) => plan.spec.createPods).filter((pod) => pod.type === 'worker');
    expect(added.length).toBeGreaterThan(0);
    for (const pod of added) expect(pod.name).toMatch(/^ctr-autoscale-edljob-worker-\d+$/);
  });
});
