import { assertNever, InvariantError } from '../errors.js';
import type { TaskPlacement } from '../model/allocation.js';
import type { CapacityScratch } from '../model/capacity.js';
import type { PlacementRequest, SchedulingContext } from './types.js';

/** One change made to a scratch, kept so that the same changes can be replayed on a fresh copy. */
type ScratchOp =
  | { readonly kind: 'place'; readonly request: PlacementRequest; readonly tasks: readonly TaskPlacement[] }
  | { readonly kind: 'unreserve'; readonly tasks: readonly TaskPlacement[] };

/**
 * A scratch that logs its changes, so that a trial (take units from donors, preempt some jobs, see
 * if a job fits) can run on a fork and be dropped without undoing anything. A fork copies the
 * scratch (its cost is the nodes the plan changed, not the plan); the log lets a copy leave one
 * removal out: placement is deterministic, so replaying the rest on a fresh scratch rebuilds the
 * state the plan would have had without it.
 */
export class ReplayScratch {
  readonly scratch: CapacityScratch;
  private readonly ops: ScratchOp[];

  /** A fresh plan on the context's scratch (or one that goes on from `from`: its scratch's copy and its log). */
  constructor(
    private readonly context: SchedulingContext,
    from?: { readonly scratch: CapacityScratch; readonly ops: readonly ScratchOp[] },
  ) {
    this.scratch = from === undefined ? context.scratch() : from.scratch.copy();
    this.ops = from === undefined ? [] : from.ops.slice();
  }

  /** Places a gang with the stack's placement policy and logs it; null (nothing logged) when it does not fit. */
  place(request: PlacementRequest): TaskPlacement[] | null {
    const tasks = this.context.placement.place(this.scratch, request);
    if (tasks !== null) this.ops.push({ kind: 'place', request, tasks });
    return tasks;
  }

  /** Gives tasks back and logs it. */
  unreserve(tasks: readonly TaskPlacement[]): void {
    this.scratch.unreserve(tasks);
    this.ops.push({ kind: 'unreserve', tasks });
  }

  /** A copy with the same changes, which goes on without changing this one. */
  fork(): ReplayScratch {
    return new ReplayScratch(this.context, { scratch: this.scratch, ops: this.ops });
  }

  /**
   * A copy without the removal of `tasks` (the very array given to `unreserve`), or null when some
   * placement then comes out differently (it used the capacity that removal freed).
   */
  withoutRemoval(tasks: readonly TaskPlacement[]): ReplayScratch | null {
    const index = this.ops.findIndex((op) => op.kind === 'unreserve' && op.tasks === tasks);
    if (index < 0) throw new InvariantError('no such removal in the plan');
    return this.replay(this.ops.filter((_, i) => i !== index));
  }

  /** Replays ops on a fresh scratch; null when a placement does not give the tasks it gave before. */
  private replay(ops: readonly ScratchOp[]): ReplayScratch | null {
    const copy = new ReplayScratch(this.context);
    for (const op of ops) {
      switch (op.kind) {
        case 'place': {
          const tasks = copy.place(op.request);
          if (tasks === null || !sameTasks(tasks, op.tasks)) return null;
          break;
        }
        case 'unreserve':
          copy.unreserve(op.tasks);
          break;
        default:
          assertNever(op);
      }
    }
    return copy;
  }
}

/** True when two task lists are the same placements in the same order. */
function sameTasks(a: readonly TaskPlacement[], b: readonly TaskPlacement[]): boolean {
  return (
    a.length === b.length &&
    a.every((t, i) => {
      const u = b[i]!;
      return t.role === u.role && t.nodeIndex === u.nodeIndex && t.demand === u.demand && t.gpuIndices.join() === u.gpuIndices.join();
    })
  );
}
