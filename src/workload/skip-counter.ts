import type { TraceError } from '../errors.js';

/** Bad rows skipped during a read, counted by "column: reason", with the first few kept as examples. */
export class SkipCounter {
  /** Skipped rows per "column: reason", in order of first appearance. */
  readonly byReason = new Map<string, number>();
  /** The first skipped rows, for messages. */
  readonly examples: TraceError[] = [];
  total = 0;

  /** Counts one skipped row. */
  add(error: TraceError): void {
    this.total++;
    this.byReason.set(error.countKey, (this.byReason.get(error.countKey) ?? 0) + 1);
    if (this.examples.length < 3) this.examples.push(error);
  }

  /** One line: "skipped 12 bad rows: 7 x col: reason, 5 x …; first: file:line: …", or "no bad rows". */
  describe(): string {
    if (this.total === 0) return 'no bad rows';
    const reasons = [...this.byReason].map(([reason, count]) => `${count} x ${reason}`).join(', ');
    return `skipped ${this.total} bad row${this.total === 1 ? '' : 's'}: ${reasons}; first: ${this.examples[0]!.message}`;
  }
}
