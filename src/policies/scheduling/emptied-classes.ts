/** Empty classes a queue keeps at most unless told otherwise (dlsim's bound on what it holds for gangs not queued now). */
export const EMPTY_CLASSES_KEPT = 1024;

/**
 * The classes of a queue left without jobs, kept for their gang's next job: most jobs start in the
 * pass they arrive in, and making a class for each was much of what adding it cost. The classes
 * emptied since the last drop are listed in the order they emptied (one that took a job and
 * emptied again is listed again); once more than `kept` are listed, the queue drops every listed
 * class still empty. So at most `kept` empty classes are kept, and a class that empties or takes a
 * job again changes no table (keeping the last emptied in an ordered map rehashed it over and over).
 */
export class EmptiedClasses<C> {
  private readonly listed: C[] = [];

  /** @param dropIfEmpty drops the class from its queue if it is still there and empty */
  constructor(
    private readonly kept: number,
    private readonly dropIfEmpty: (shape: C) => void,
  ) {}

  /** The class has no jobs left. */
  emptied(shape: C): void {
    this.listed.push(shape);
    if (this.listed.length <= this.kept) return;
    for (let k = 0; k < this.listed.length; k++) this.dropIfEmpty(this.listed[k]!);
    this.listed.length = 0;
  }
}
