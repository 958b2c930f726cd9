/**
 * ScalePlans as DLRover's job master writes them: one `elastic.iml.github.io/v1alpha1` ScalePlan
 * custom resource per plan (REFERENCE §2), in the key order `kubectl get -o yaml` prints.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Document } from 'yaml';
import { oneLine } from '../errors.js';
import { formatCpu, formatMemory } from '../io/k8s-quantity.js';
import type { Role } from '../model/job-spec.js';
import type { PodMeta, PodResource, ScalePlanRecord } from '../model/scale-plan.js';
import { ELASTIC_JOB_API_VERSION } from '../workload/formats/elastic-job.js';

/** Folder, inside a run's output folder, that holds its ScalePlan files. */
export const SCALE_PLAN_FOLDER = 'scaleplans';

/** Roles in the order a ScalePlan lists them under replicaResourceSpecs (alphabetical, as kubectl prints maps). */
const ROLE_ORDER: readonly Role[] = ['chief', 'ps', 'worker'];

/** A plan's `metadata.name`: `<ownerJob>-scaleplan-<seq>`. */
export function scalePlanName(record: Pick<ScalePlanRecord, 'ownerJob' | 'seq'>): string {
  return `${record.ownerJob}-scaleplan-${record.seq}`;
}

function resourceDoc(resource: PodResource): { cpu: string; memory: string } {
  return { cpu: formatCpu(resource.cpuMilli), memory: formatMemory(resource.memMiB) };
}

function podDoc(pod: PodMeta): Record<string, unknown> {
  return { name: pod.name, id: pod.id, type: pod.type, rankIndex: pod.rankIndex, service: pod.service, resource: resourceDoc(pod.resource) };
}

/** The plan as the ScalePlan object Kubernetes would hold (quantities as text; migratePods only when it moves pods). */
export function scalePlanObject(record: ScalePlanRecord): Record<string, unknown> {
  const replicaResourceSpecs: Record<string, unknown> = {};
  for (const role of ROLE_ORDER) {
    const spec = record.replicaResourceSpecs[role];
    if (spec !== undefined) replicaResourceSpecs[role] = { replicas: spec.replicas, resource: resourceDoc(spec.resource) };
  }
  return {
    apiVersion: ELASTIC_JOB_API_VERSION,
    kind: 'ScalePlan',
    metadata: {
      labels: { 'elasticjob-name': record.ownerJob, 'scale-type': 'auto' },
      name: scalePlanName(record),
    },
    spec: {
      createPods: record.createPods.map(podDoc),
      ...(record.migratePods.length === 0 ? {} : { migratePods: record.migratePods.map(podDoc) }),
      ownerJob: record.ownerJob,
      psHosts: [...record.psHosts],
      removePods: record.removePods.map(podDoc),
      replicaResourceSpecs,
    },
  };
}

/** The plan as ScalePlan YAML, headed by a comment with the simulated time it was made and why. */
export function scalePlanYaml(record: ScalePlanRecord): string {
  const document = new Document(scalePlanObject(record));
  document.commentBefore = ` made at ${record.atS} s of simulated time: ${oneLine(record.reason)}`;
  return document.toString({ indentSeq: false, lineWidth: 0 });
}

/** A file name that stays inside its folder whatever the job id holds: characters other than letters, digits, '.', '_' and '-' become '_'. */
function safeFileName(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9._-]/g, '_');
  return safe.startsWith('.') ? `_${safe.slice(1)}` : safe;
}

/**
 * The files of a run's ScalePlans: [path relative to the output folder, YAML text], one
 * `scaleplans/<ownerJob>-scaleplan-<seq>.yaml` per plan, in the order given. Two plans whose names
 * would clash once made safe for the file system get `-2`, `-3`, … suffixes.
 */
export function scalePlanFiles(records: readonly ScalePlanRecord[]): [path: string, text: string][] {
  const used = new Set<string>();
  return records.map((record) => {
    const base = safeFileName(scalePlanName(record));
    let name = `${base}.yaml`;
    for (let k = 2; used.has(name); k++) name = `${base}-${k}.yaml`;
    used.add(name);
    return [`${SCALE_PLAN_FOLDER}/${name}`, scalePlanYaml(record)];
  });
}

/** True for a file name `scalePlanFiles` could have written (`…-scaleplan-<n>.yaml`, with an optional clash suffix). */
export function isScalePlanFileName(name: string): boolean {
  return /-scaleplan-\d+(-\d+)?\.yaml$/.test(name);
}

/**
 * ScalePlan files an earlier run left in `outDir`'s scaleplans folder that `keep` (this run's
 * paths, relative to `outDir`) does not rewrite: paths relative to `outDir`. Only names that
 * scalePlanFiles could have written count; none when the folder is missing or unreadable.
 */
export function staleScalePlanFiles(outDir: string, keep: readonly string[]): string[] {
  let names: string[];
  try {
    names = readdirSync(join(outDir, SCALE_PLAN_FOLDER), { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => entry.name);
  } catch {
    return [];
  }
  const kept = new Set(keep);
  return names
    .filter(isScalePlanFileName)
    .map((name) => `${SCALE_PLAN_FOLDER}/${name}`)
    .filter((path) => !kept.has(path))
    .sort();
}
