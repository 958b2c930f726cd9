import { spawnSync } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { defaultJobName, isJobName, k8sJobYaml, type K8sJobSpec } from '../../src/sweep/k8s-job.js';
import { folderWith } from '../cli-run.js';

const spec: K8sJobSpec = {
  name: 'dlsim-sweep-grid',
  sweepName: 'grid',
  image: 'registry.example/dlsim:0.1.0',
  sweepFile: 'scenarios/sweeps/my grid.yaml',
  shards: 3,
  parallelism: 2,
  workers: 4,
  cpu: '4',
  memory: '8Gi',
  pvc: 'sweep-results',
};

/** The manifest as kubectl would read it. */
function manifest(): any {
  return parse(k8sJobYaml(spec));
}

describe('Kubernetes Job manifest', () => {
  it('is an Indexed batch/v1 Job with one completion per shard, the parallelism, image, resources and results volume', () => {
    const job = manifest();
    expect(job.apiVersion).toBe('batch/v1');
    expect(job.kind).toBe('Job');
    expect(job.metadata.name).toBe('dlsim-sweep-grid');
    expect(job.spec).toMatchObject({ completionMode: 'Indexed', completions: 3, parallelism: 2 });
    const pod = job.spec.template.spec;
    expect(pod.restartPolicy).toBe('Never');
    const container = pod.containers[0];
    expect(container.image).toBe('registry.example/dlsim:0.1.0');
    expect(container.resources.requests).toEqual({ cpu: '4', memory: '8Gi' });
    expect(container.volumeMounts).toEqual([{ name: 'results', mountPath: '/results' }]);
    expect(pod.volumes).toEqual([{ name: 'results', persistentVolumeClaim: { claimName: 'sweep-results' } }]);
    expect(container.command.slice(0, 2)).toEqual(['sh', '-c']);
    expect(container.command[3]).toBe('scenarios/sweeps/my grid.yaml');
    expect(k8sJobYaml(spec)).not.toMatch(/[&*]a\d/);
  });

  it("runs dlsim sweep on the pod's shard, the shell expanding JOB_COMPLETION_INDEX (a fake node prints its arguments)", () => {
    const container = manifest().spec.template.spec.containers[0];
    const bin = folderWith({ node: '#!/bin/sh\nprintf "%s\\n" "$@"\n' });
    chmodSync(join(bin, 'node'), 0o755);
    const env = { PATH: `${bin}:${process.env.PATH ?? ''}`, JOB_COMPLETION_INDEX: '2' };
    const ran = spawnSync(container.command[0], container.command.slice(1), { env, encoding: 'utf8' });
    expect(ran.status).toBe(0);
    expect(ran.stdout.trim().split('\n')).toEqual([
      '/app/dist/cli/main.js', 'sweep', 'scenarios/sweeps/my grid.yaml', '--shard', '2/3', '--out', '/results/shard-2', '--resume', '--workers', '4',
    ]);
    const unset = spawnSync(container.command[0], container.command.slice(1), { env: { PATH: env.PATH }, encoding: 'utf8' });
    expect(unset.status).not.toBe(0);
    expect(unset.stderr).toContain('JOB_COMPLETION_INDEX');
  });

  it('makes Job names Kubernetes takes from sweep names', () => {
    expect(defaultJobName('My_Grid.v2')).toBe('dlsim-sweep-my-grid-v2');
    expect(isJobName(defaultJobName('x'.repeat(80)))).toBe(true);
    expect(isJobName('Bad_Name')).toBe(false);
  });
});
