/** The time each queued job waits for each reason its scheduling policy gives (see policies/wait-reason.ts). */
import { InvariantError } from '../errors.js';
import { WAIT_REASONS, type WaitReason } from '../policies/wait-reason.js';

/** Reasons by number (their place in WAIT_REASONS). */
const REASONS = WAIT_REASONS.length;
const NOT_CHOSEN = WAIT_REASONS.indexOf('not-chosen');
const PREEMPTED = WAIT_REASONS.indexOf('preempted');
const REASON_INDEX: ReadonlyMap<WaitReason, number> = new Map(WAIT_REASONS.map((reason, i) => [reason, i]));

/** Where a job's wait is attributed: nowhere (not queued), its group's reason, or a reason of its own. */
const Mode = { None: 0, Group: 1, Own: 2 } as const;

/**
 * A group's reason over time, in epochs (a new one at each change of reason): epoch k started at
 * `startS[k]` with `reason[k]`, and `cumulativeS[k * REASONS + r]` seconds of reason r before it.
 */
class GroupClock {
  private startS: number[] = [];
  private reasons: number[] = [];
  private cumulativeS: number[] = [];
  /** The job keeping the group's jobs waiting now (-1: none). */
  blocker = -1;

  constructor(startS: number, reason: number) {
    this.startS.push(startS);
    this.reasons.push(reason);
    for (let r = 0; r < REASONS; r++) this.cumulativeS.push(0);
  }

  /** The current epoch. */
  get epoch(): number {
    return this.startS.length - 1;
  }

  /** The group waits for `reason` from `nowS` (a new epoch when the reason changes). */
  set(nowS: number, reason: number): void {
    const last = this.epoch;
    if (this.reasons[last] === reason) return;
    if (this.startS[last] === nowS) {
      // Nothing accrued in the epoch: it is replaced, not followed.
      this.reasons[last] = reason;
      return;
    }
    const base = last * REASONS;
    for (let r = 0; r < REASONS; r++) this.cumulativeS.push(this.cumulativeS[base + r]! + (r === this.reasons[last] ? nowS - this.startS[last]! : 0));
    this.startS.push(nowS);
    this.reasons.push(reason);
  }

  /** The reason of epoch `epoch`. */
  reasonOf(epoch: number): number {
    return this.reasons[epoch]!;
  }

  /** Seconds of reason r the group accrued before `atS`, which falls in epoch `epoch`. */
  accruedS(epoch: number, atS: number, r: number): number {
    return this.cumulativeS[epoch * REASONS + r]! + (this.reasons[epoch] === r ? atS - this.startS[epoch]! : 0);
  }
}

/** What the ledger needs to know of a job: its number among the run's jobs. */
export interface LedgerJob {
  readonly arrivalIndex: number;
}

/** What a finished run's ledger tells of each job. */
export interface WaitLedgerView {
  /** Seconds the job waited for each reason (WAIT_REASONS order). */
  secondsOf(job: LedgerJob): number[];
  /** The job last named as keeping it waiting, as its number among the run's jobs (-1: none). */
  blockerOfJob(job: LedgerJob): number;
}

/**
 * Attributes every queued second of every job to one reason. A job waits either for its own
 * reason (named by the policy) or for its group's (the policy's groups, and group -1: every job
 * not named). A group keeps a clock of its reasons over time, so moving a group to another reason
 * costs O(1) whatever its size, and a job takes its share when it leaves the group. Per job: a few
 * numbers in typed arrays, and its seconds per reason.
 */
export class WaitLedger implements WaitLedgerView {
  private readonly mode: Uint8Array;
  private readonly ownReason: Uint8Array;
  /** Own reason: since when; group: when it joined the group. */
  private readonly sinceS: Float64Array;
  private readonly groupOf: Int32Array;
  private readonly epochOf: Int32Array;
  private readonly blockerOf: Int32Array;
  /** The pass in which the job's own reason was last given. */
  private readonly namedIn: Uint32Array;
  /**
   * Each job's seconds per reason, job after job (job i's from i * REASONS on). Made at its full
   * size: the system gives its memory a page at a time as jobs first wait, where a store grown by
   * doubling copied itself over and over (0.14 s of a million-job replay whose later half queues).
   */
  private readonly rows: Float64Array;
  /** Groups by number; the jobs not named (`others`) are the group at index 0 (policy group g at g + 1). */
  private readonly groups: GroupClock[] = [];
  /** Jobs with a reason of their own that `others` may take back (not `preempted`), possibly stale; `inNamed` marks them. */
  private named: number[] = [];
  private readonly inNamed: Uint8Array;
  /** The list's length after its last compaction (it is compacted again when it doubles). */
  private namedCompacted = 0;
  private pass = 0;
  /** Seconds settled so far per reason, over every job. */
  private readonly totalS = new Float64Array(REASONS);
  private othersGiven = false;

  constructor(
    jobs: number,
    private readonly startS: number,
  ) {
    this.mode = new Uint8Array(jobs);
    this.ownReason = new Uint8Array(jobs);
    this.sinceS = new Float64Array(jobs);
    this.groupOf = new Int32Array(jobs);
    this.epochOf = new Int32Array(jobs);
    this.blockerOf = new Int32Array(jobs).fill(-1);
    this.namedIn = new Uint32Array(jobs);
    this.rows = new Float64Array(jobs * REASONS);
    this.inNamed = new Uint8Array(jobs);
    this.groups.push(new GroupClock(startS, NOT_CHOSEN));
  }

  /**
   * The job joined the queue at `nowS`: it waits as the jobs not named do, or, when it was
   * preempted (`preemptedBy` given), `preempted` (by that job; null: unknown).
   */
  joined(job: LedgerJob, nowS: number, preemptedBy?: LedgerJob | null): void {
    const i = job.arrivalIndex;
    if (this.mode[i] !== Mode.None) throw new InvariantError(`job #${i} joined the queue twice`);
    if (preemptedBy !== undefined) this.setOwn(i, nowS, PREEMPTED, preemptedBy?.arrivalIndex ?? -1);
    else this.enterGroup(i, 0, nowS);
  }

  /** The job left the queue at `nowS` (it started, or the run ended): its wait is settled. */
  left(job: LedgerJob, nowS: number): void {
    const i = job.arrivalIndex;
    this.settle(i, nowS);
    this.mode[i] = Mode.None;
  }

  /** A scheduling pass begins. */
  beginPass(): void {
    this.pass++;
    this.othersGiven = false;
  }

  /**
   * A scheduling pass ended at `nowS`: when it named the others' reason, jobs named before but not
   * in it take that reason. Costs the jobs named in the pass and those it takes back (and, now and
   * then, a compaction of the list as it doubles).
   */
  endPass(nowS: number): void {
    if (!this.othersGiven && this.named.length < 2 * this.namedCompacted + 16) return;
    const kept: number[] = [];
    for (const i of this.named) {
      const revocable = this.mode[i] === Mode.Own && this.ownReason[i] !== PREEMPTED;
      if (revocable && (this.namedIn[i] === this.pass || !this.othersGiven)) {
        kept.push(i);
        continue;
      }
      this.inNamed[i] = 0;
      if (revocable) {
        this.settle(i, nowS);
        this.enterGroup(i, 0, nowS);
      }
    }
    this.named = kept;
    this.namedCompacted = kept.length;
  }

  /** The queued job waits for its own `reason` from `nowS`. */
  own(job: LedgerJob, nowS: number, reason: WaitReason, blocker?: LedgerJob): void {
    const i = job.arrivalIndex;
    if (this.mode[i] === Mode.None) throw new InvariantError(`a reason was given for job #${i}, which is not queued`);
    const r = REASON_INDEX.get(reason)!;
    const by = blocker?.arrivalIndex ?? -1;
    if (r !== PREEMPTED && this.inNamed[i] === 0) {
      this.inNamed[i] = 1;
      this.named.push(i);
    }
    this.namedIn[i] = this.pass;
    if (this.mode[i] === Mode.Own && this.ownReason[i] === r) {
      this.blockerOf[i] = by;
      return;
    }
    this.setOwn(i, nowS, r, by);
  }

  /** Jobs not named in this pass and in no group wait for `reason` (kept by `blocker`) from `nowS`. */
  others(nowS: number, reason: WaitReason, blocker?: LedgerJob): void {
    this.othersGiven = true;
    this.setGroup(0, nowS, reason, blocker);
  }

  /** The queued job waits for what policy group `group` waits for, from `nowS`. */
  joinGroup(job: LedgerJob, nowS: number, group: number): void {
    const i = job.arrivalIndex;
    if (this.mode[i] === Mode.None) throw new InvariantError(`job #${i} joined a group while not queued`);
    const g = group + 1;
    // A preempted job stays so until the policy names it.
    if ((this.mode[i] === Mode.Group && this.groupOf[i] === g) || (this.mode[i] === Mode.Own && this.ownReason[i] === PREEMPTED)) return;
    this.settle(i, nowS);
    this.enterGroup(i, g, nowS);
  }

  /** Policy group `group` waits for `reason` (kept by `blocker`) from `nowS`. */
  group(group: number, nowS: number, reason: WaitReason, blocker?: LedgerJob): void {
    this.setGroup(group + 1, nowS, reason, blocker);
  }

  /** Seconds the job waited for each reason (WAIT_REASONS order), up to its last settlement. */
  secondsOf(job: LedgerJob): number[] {
    const at = job.arrivalIndex * REASONS;
    return Array.from(this.rows.subarray(at, at + REASONS));
  }

  /** Seconds settled so far per reason over every job, by reason name (WAIT_REASONS order). */
  totalsByReason(): Record<WaitReason, number> {
    const out = {} as Record<WaitReason, number>;
    WAIT_REASONS.forEach((reason, r) => (out[reason] = this.totalS[r]!));
    return out;
  }

  /** The job last named as keeping it waiting, as its number among the run's jobs (-1: none). */
  blockerOfJob(job: LedgerJob): number {
    return this.blockerOf[job.arrivalIndex]!;
  }

  private setGroup(g: number, nowS: number, reason: WaitReason, blocker: LedgerJob | undefined): void {
    while (this.groups.length <= g) this.groups.push(new GroupClock(this.startS, NOT_CHOSEN));
    const clock = this.groups[g]!;
    clock.set(nowS, REASON_INDEX.get(reason)!);
    clock.blocker = blocker?.arrivalIndex ?? -1;
  }

  private enterGroup(i: number, g: number, nowS: number): void {
    while (this.groups.length <= g) this.groups.push(new GroupClock(this.startS, NOT_CHOSEN));
    this.mode[i] = Mode.Group;
    this.groupOf[i] = g;
    this.epochOf[i] = this.groups[g]!.epoch;
    this.sinceS[i] = nowS;
  }

  private setOwn(i: number, nowS: number, r: number, by: number): void {
    if (this.mode[i] !== Mode.None) this.settle(i, nowS);
    this.mode[i] = Mode.Own;
    this.ownReason[i] = r;
    this.sinceS[i] = nowS;
    this.blockerOf[i] = by;
  }

  /** Adds the job's wait since its mode began to its row, and starts the mode afresh at `nowS`. */
  private settle(i: number, nowS: number): void {
    const mode = this.mode[i];
    if (mode === Mode.Own) {
      const dtS = nowS - this.sinceS[i]!;
      if (dtS > 0) this.add(i, this.ownReason[i]!, dtS);
    } else if (mode === Mode.Group) {
      const clock = this.groups[this.groupOf[i]!]!;
      const from = this.epochOf[i]!;
      const to = clock.epoch;
      const joinedS = this.sinceS[i]!;
      if (nowS > joinedS) {
        // Within one epoch only its reason accrued (every other reason's two readings are one number).
        const first = from === to ? clock.reasonOf(to) : 0;
        const end = from === to ? first + 1 : REASONS;
        for (let r = first; r < end; r++) {
          const dtS = clock.accruedS(to, nowS, r) - clock.accruedS(from, joinedS, r);
          if (dtS > 0) this.add(i, r, dtS);
        }
      }
      this.blockerOf[i] = clock.blocker;
      this.epochOf[i] = to;
    }
    this.sinceS[i] = nowS;
  }

  private add(i: number, r: number, seconds: number): void {
    const at = i * REASONS + r;
    this.rows[at] = this.rows[at]! + seconds;
    this.totalS[r] = this.totalS[r]! + seconds;
  }
}
