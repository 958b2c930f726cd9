import { GPU_MILLI } from '../../model/cluster-spec.js';
import type { JobSpec, RoleSpec } from '../../model/job-spec.js';

/** A job's roles with its GPU roles' CPU cut to `cpuMilliPerGpu` per GPU (others as they are); null when nothing changes. */
export function trainingRolesOf(spec: JobSpec, cpuMilliPerGpu: number): JobSpec['roles'] | null {
  let changed = false;
  const roles = spec.roles.map((role): RoleSpec => {
    const { demand } = role;
    if (demand.gpus === 0) return role;
    const share = Math.ceil((cpuMilliPerGpu * demand.gpus * demand.gpuMilli) / GPU_MILLI);
    if (demand.cpuMilli <= share) return role;
    changed = true;
    return { ...role, demand: { ...demand, cpuMilli: share } };
  });
  return changed ? roles : null;
}
