/** Jobs of a trace asking for the same roles share one list of them. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JobSpec } from '../../src/model/job-spec.js';
import { presetNames } from '../../src/policies/presets.js';
import { loadScenario } from '../../src/scenario/load.js';
import { nativeLine } from '../../src/workload/formats/native.js';
import { sameRoles, SharedRoles } from '../../src/workload/shared-roles.js';
import { folderWith } from '../cli-run.js';
import { batchJob } from '../helpers.js';

describe('SharedRoles', () => {
  it('gives jobs with equal roles the first such job\'s list, keeping everything else of each job', () => {
    const roles = new SharedRoles();
    const a = batchJob('a', 0, 2, 10);
    const b = batchJob('b', 5, 2, 20);
    expect(b.roles).not.toBe(a.roles);
    expect(roles.shared(a)).toBe(a);
    const sharedB = roles.shared(b);
    expect(sharedB.roles).toBe(a.roles);
    expect(sharedB).toEqual(b);
    // A job already holding the shared list is returned as it is.
    expect(roles.shared(sharedB)).toBe(sharedB);
    expect(roles.size).toBe(1);
  });

  it('keeps lists apart that differ in any field of a role or of its demand', () => {
    const roles = new SharedRoles();
    const base = batchJob('a', 0, 1, 10);
    const role = base.roles[0]!;
    const variants: JobSpec[] = [
      base,
      batchJob('more-gpus', 0, 2, 10),
      batchJob('more-replicas', 0, 1, 10, 2),
      { ...base, id: 'named', roles: [{ ...role, role: 'chief' }] },
      { ...base, id: 'cpu', roles: [{ ...role, demand: { ...role.demand, cpuMilli: role.demand.cpuMilli + 1 } }] },
      { ...base, id: 'memory', roles: [{ ...role, demand: { ...role.demand, memMiB: role.demand.memMiB + 1 } }] },
      { ...base, id: 'share', roles: [{ ...role, demand: { ...role.demand, gpuMilli: 500 } }] },
      { ...base, id: 'memory-use', roles: [{ ...role, memUseMiB: 100 }] },
      { ...base, id: 'memory-use-2', roles: [{ ...role, memUseMiB: 200 }] },
      { ...base, id: 'two-roles', roles: [role, { ...role, role: 'ps' }] },
      { ...base, id: 'two-roles-swapped', roles: [{ ...role, role: 'ps' }, role] },
    ];
    for (const job of variants) expect(roles.shared(job).roles).toBe(job.roles);
    expect(roles.size).toBe(variants.length);
    // Told apart by their fields, not only by their hashes.
    for (const a of variants) for (const b of variants) expect(sameRoles(a.roles, b.roles)).toBe(a === b);
    // The same fields written in another order are the same list.
    const reordered = { ...base, id: 'order', roles: [{ demand: { memMiB: role.demand.memMiB, cpuMilli: role.demand.cpuMilli, gpuMilli: role.demand.gpuMilli, gpus: role.demand.gpus }, replicas: role.replicas, role: role.role }] };
    expect(roles.shared(reordered).roles).toBe(base.roles);
  });

  it('shares lists found under one hash among many (every list of a thousand shapes kept apart, each shared by its copies)', () => {
    const roles = new SharedRoles();
    const first = new Map<string, JobSpec['roles']>();
    for (let k = 0; k < 3000; k++) {
      const shape = k % 1000;
      const job = batchJob(`j${k}`, k, 1 + (shape % 8), 10, 1 + Math.floor(shape / 8));
      const shared = roles.shared(job).roles;
      const key = `${1 + (shape % 8)}/${1 + Math.floor(shape / 8)}`;
      expect(shared).toBe(first.get(key) ?? job.roles);
      first.set(key, shared);
    }
    expect(roles.size).toBe(1000);
  });
});

describe('a trace workload', () => {
  it('shares one list of roles among the jobs asking for the same roles', async () => {
    const jobs = [batchJob('a', 0, 1, 10), batchJob('b', 10, 2, 10), batchJob('c', 20, 1, 30), batchJob('d', 30, 2, 40)];
    const dir = folderWith({
      'jobs.jsonl': `${jobs.map(nativeLine).join('\n')}\n`,
      's.yaml': 'cluster:\n  nodes:\n    - {count: 1, gpus: 8, gpuType: A100, cpuCores: 96, memGiB: 1024}\nworkload:\n  trace: {format: native, files: jobs.jsonl}\n',
    });
    const scenario = await loadScenario(join(dir, 's.yaml'), { knownPolicies: presetNames() });
    const [a, b, c, d] = scenario.jobs;
    expect(c!.roles).toBe(a!.roles);
    expect(d!.roles).toBe(b!.roles);
    expect(b!.roles).not.toBe(a!.roles);
    expect(scenario.jobs.map((job) => [job.id, job.roles[0]!.demand.gpus, job.totalSteps])).toEqual([
      ['a', 1, 10],
      ['b', 2, 10],
      ['c', 1, 30],
      ['d', 2, 40],
    ]);
  });
});
