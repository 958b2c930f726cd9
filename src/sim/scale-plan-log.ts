/**
 * The auto-scaler's decisions as DLRover's job master would emit them: ScalePlans naming pods
 * (`<job>-edljob-<role>-<id>`, ids never reused in a job), with the PS service addresses after each
 * plan. Pods get their ids the first time a plan sees them, in the order it sees them.
 */
import type { TaskPlacement } from '../model/allocation.js';
import type { Role, RoleSpec } from '../model/job-spec.js';
import { podName, psServiceOf, type PodMeta, type PodResource, type ScalePlanRecord } from '../model/scale-plan.js';
import { isPsMigration, type Decision } from '../policies/decision.js';

/** A job's pods as the log names them. */
interface JobPods {
  readonly ids: Map<TaskPlacement, number>;
  readonly next: Map<Role, number>;
  seq: number;
}

/** Keeps the plans of a run and the pod names they use. */
export class ScalePlanLog {
  readonly plans: ScalePlanRecord[] = [];
  private readonly jobs = new Map<string, JobPods>();

  /** `onPlan` hears of every plan as it is logged (the run's timeline lists them). */
  constructor(private readonly onPlan: (plan: ScalePlanRecord) => void = () => {}) {}

  /** The create plan of a job sized at submission: the replicas and resources of each role. */
  created(jobId: string, atS: number, roles: readonly RoleSpec[], reason: string): void {
    const specs: Partial<Record<Role, { replicas: number; resource: PodResource }>> = {};
    for (const role of roles) specs[role.role] = { replicas: role.replicas, resource: { cpuMilli: role.demand.cpuMilli, memMiB: role.demand.memMiB } };
    // The PS it creates take the job's first PS ids, as its first pods do.
    const psHosts = Array.from({ length: specs.ps?.replicas ?? 0 }, (_, id) => psServiceOf(podName(jobId, 'ps', id)));
    this.add({ ownerJob: jobId, seq: this.pods(jobId).seq++, atS, reason, replicaResourceSpecs: specs, createPods: [], removePods: [], migratePods: [], psHosts });
  }

  /**
   * An applied decision of the auto-scaler, with the job's tasks before and after it and its PS in
   * rank order after it. A PS reshape that removes and adds as many pods migrates them.
   */
  applied(decision: Extract<Decision, { kind: 'resize' | 'reshape-role' }>, atS: number, before: readonly TaskPlacement[], after: readonly TaskPlacement[], psRanked: readonly TaskPlacement[]): void {
    const jobId = decision.jobId;
    const book = this.pods(jobId);
    for (const task of before) this.idOf(book, task);
    for (const task of decision.add) this.idOf(book, task);
    const meta = (task: TaskPlacement, rank: number): PodMeta => {
      const name = podName(jobId, task.role, this.idOf(book, task));
      return { name, id: this.idOf(book, task), type: task.role, rankIndex: rank, service: task.role === 'ps' ? psServiceOf(name) : '', resource: { cpuMilli: task.demand.cpuMilli, memMiB: task.demand.memMiB } };
    };
    const rankAfter = (task: TaskPlacement): number => (task.role === 'ps' ? psRanked.indexOf(task) : after.filter((t) => t.role === task.role).indexOf(task));
    const rankBefore = (task: TaskPlacement): number => before.filter((t) => t.role === task.role).indexOf(task);
    const migrates = isPsMigration(decision);
    const specs: Partial<Record<Role, { replicas: number; resource: PodResource }>> = {};
    const roles = new Set<Role>([...decision.add, ...decision.remove].map((t) => t.role));
    for (const role of roles) {
      const mine = after.filter((t) => t.role === role);
      const sample = decision.add.find((t) => t.role === role) ?? mine[mine.length - 1] ?? decision.remove.find((t) => t.role === role)!;
      specs[role] = { replicas: mine.length, resource: { cpuMilli: sample.demand.cpuMilli, memMiB: sample.demand.memMiB } };
    }
    this.add({
      ownerJob: jobId,
      seq: book.seq++,
      atS,
      reason: decision.reason ?? '',
      replicaResourceSpecs: specs,
      createPods: migrates ? [] : decision.add.map((t) => meta(t, rankAfter(t))),
      removePods: migrates ? [] : decision.remove.map((t) => meta(t, rankBefore(t))),
      migratePods: migrates ? decision.add.map((t) => meta(t, rankAfter(t))) : [],
      psHosts: psRanked.map((t) => psServiceOf(podName(jobId, 'ps', this.idOf(book, t)))),
    });
  }

  private add(plan: ScalePlanRecord): void {
    this.plans.push(plan);
    this.onPlan(plan);
  }

  private pods(jobId: string): JobPods {
    let book = this.jobs.get(jobId);
    if (book === undefined) {
      book = { ids: new Map(), next: new Map(), seq: 0 };
      this.jobs.set(jobId, book);
    }
    return book;
  }

  private idOf(book: JobPods, task: TaskPlacement): number {
    let id = book.ids.get(task);
    if (id === undefined) {
      id = book.next.get(task.role) ?? 0;
      book.next.set(task.role, id + 1);
      book.ids.set(task, id);
    }
    return id;
  }
}

/** A plan in one line for the timeline: the replicas it sets per role, the pods it changes, and why. */
export function describePlan(plan: ScalePlanRecord): string {
  const roles = Object.entries(plan.replicaResourceSpecs).map(([role, spec]) => `${role} ${spec!.replicas} x ${spec!.resource.cpuMilli / 1000} cores ${spec!.resource.memMiB} MiB`);
  const pods = [
    plan.createPods.length > 0 ? `+${plan.createPods.length} pods` : '',
    plan.removePods.length > 0 ? `-${plan.removePods.length} pods` : '',
    plan.migratePods.length > 0 ? `${plan.migratePods.length} migrated` : '',
  ].filter((p) => p !== '');
  return `plan ${plan.seq}: ${roles.join(', ')}${pods.length > 0 ? ` (${pods.join(', ')})` : ''}; ${plan.reason}`;
}
