/**
 * The Kubernetes Job that runs a sweep's shards: a batch/v1 Indexed Job whose pod I runs
 * `dlsim sweep FILE --shard I/N` into its own folder on a shared volume.
 */
import { stringify } from 'yaml';

/** Where the results volume is mounted in each pod. */
export const RESULTS_MOUNT = '/results';
/** The dlsim program inside the image (the Dockerfile's layout). */
export const IMAGE_CLI = '/app/dist/cli/main.js';

/** What the Job is made of. */
export interface K8sJobSpec {
  /** The Job's name (a DNS label). */
  readonly name: string;
  /** The sweep's name, as a label. */
  readonly sweepName: string;
  readonly image: string;
  /** The sweep file's path inside the image (relative to its working folder, /app). */
  readonly sweepFile: string;
  /** Completions: one pod per shard. */
  readonly shards: number;
  /** Pods at once. */
  readonly parallelism: number;
  /** Worker threads per pod. */
  readonly workers: number;
  /** CPU and memory each pod requests (Kubernetes quantities). */
  readonly cpu: string;
  readonly memory: string;
  /** The PersistentVolumeClaim the results go to (shared by all pods: ReadWriteMany). */
  readonly pvc: string;
}

/** Most characters of a Job name: its pods' host names add "-" and the index to it, within 63. */
export const MAX_JOB_NAME = 50;

/** A Job name made from a sweep's name: "dlsim-sweep-" and the name in lower case, other characters as "-". */
export function defaultJobName(sweepName: string): string {
  const cleaned = sweepName.toLowerCase().replace(/[^a-z0-9-]+/g, '-');
  return `dlsim-sweep-${cleaned}`.slice(0, MAX_JOB_NAME).replace(/-+$/, '');
}

/** True when `name` is a DNS label Kubernetes takes as a Job name (lower-case letters, digits and "-", at most MAX_JOB_NAME). */
export function isJobName(name: string): boolean {
  return name.length <= MAX_JOB_NAME && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(name);
}

/**
 * The shell script each pod runs (the sweep file comes in as $0). The shell expands
 * JOB_COMPLETION_INDEX, which the Job controller sets in every pod of an Indexed Job; it stops
 * with a message when the variable is missing. --resume lets a retried pod finish its shard.
 */
export function podScript(spec: K8sJobSpec): string {
  return [
    `exec node ${IMAGE_CLI} sweep "$0"`,
    `--shard "\${JOB_COMPLETION_INDEX:?set by an Indexed Job}/${spec.shards}"`,
    `--out "${RESULTS_MOUNT}/shard-\${JOB_COMPLETION_INDEX}"`,
    '--resume',
    `--workers ${spec.workers}`,
  ].join(' ');
}

/** The Job as an object (what kubectl apply takes, once written as YAML). */
export function k8sJob(spec: K8sJobSpec): Record<string, unknown> {
  const labels = { 'app.kubernetes.io/name': 'dlsim', 'app.kubernetes.io/component': 'sweep', 'dlsim/sweep': spec.sweepName.slice(0, 63).replace(/[^A-Za-z0-9._-]/g, '-').replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '') || 'sweep' };
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: spec.name, labels },
    spec: {
      completionMode: 'Indexed',
      completions: spec.shards,
      parallelism: spec.parallelism,
      backoffLimit: Math.max(6, spec.shards),
      template: {
        metadata: { labels },
        spec: {
          restartPolicy: 'Never',
          // The image runs as the user "node" (uid and gid 1000): the volume is made writable for its group.
          securityContext: { fsGroup: 1000 },
          containers: [
            {
              name: 'dlsim',
              image: spec.image,
              command: ['sh', '-c', podScript(spec), spec.sweepFile],
              resources: {
                requests: { cpu: spec.cpu, memory: spec.memory },
                limits: { memory: spec.memory },
              },
              volumeMounts: [{ name: 'results', mountPath: RESULTS_MOUNT }],
            },
          ],
          volumes: [{ name: 'results', persistentVolumeClaim: { claimName: spec.pvc } }],
        },
      },
    },
  };
}

/** The Job as YAML text, with a comment saying how to run it and gather its shards. */
export function k8sJobYaml(spec: K8sJobSpec): string {
  const header = [
    `# dlsim sweep ${spec.sweepFile} as a Kubernetes Indexed Job: pod I runs shard I of ${spec.shards}`,
    `# into ${RESULTS_MOUNT}/shard-I on the PersistentVolumeClaim "${spec.pvc}" (ReadWriteMany when pods share it).`,
    `#   kubectl apply -f k8s-job.yaml && kubectl wait --for=condition=complete job/${spec.name} --timeout=24h`,
    `# Then, where the volume is mounted: dlsim merge ${RESULTS_MOUNT}/shard-* --out ${RESULTS_MOUNT}/merged`,
  ];
  return `${header.join('\n')}\n${stringify(k8sJob(spec), { lineWidth: 0, aliasDuplicateObjects: false })}`;
}
