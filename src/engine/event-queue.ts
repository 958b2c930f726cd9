/** Slots an empty queue starts with (it doubles when full). */
const INITIAL_SLOTS = 64;

/**
 * A min-heap of events ordered by (time, seq): equal times pop in the order they were pushed. Each
 * entry has four children: half the levels of a binary heap, so a pop moves an entry half as many
 * times, and the four children it compares sit side by side in memory.
 *
 * The keys live apart from the events, times and sequence numbers each in a typed array, so that
 * a sift compares numbers read from two contiguous arrays instead of following a pointer to an
 * entry object per comparison (a replay's heap holds thousands of events, and each comparison
 * then read an entry from wherever it was allocated). Written here rather than taken from a heap
 * library because the order has two keys and its ties must pop in push order: the typed-array
 * heaps on npm order by one number and leave ties unordered. The sifts compare and move entries
 * inline: with the moves and the comparison in helpers the hold model ran 10-20 % slower.
 */
export class EventQueue<E> {
  private timesS = new Float64Array(INITIAL_SLOTS);
  private seqs = new Float64Array(INITIAL_SLOTS);
  private events: (E | undefined)[] = [];
  private count = 0;
  private nextSeq = 0;

  /** Adds an event at `timeS` (seconds). */
  push(timeS: number, event: E): void {
    const seq = this.nextSeq++;
    if (this.count === this.timesS.length) this.grow();
    const { timesS, seqs, events } = this;
    // Sift up from the new last slot, moving parents down into the hole.
    let k = this.count++;
    while (k > 0) {
      const parent = (k - 1) >> 2;
      const parentTimeS = timesS[parent]!;
      if (parentTimeS < timeS || (parentTimeS === timeS && seqs[parent]! < seq)) break;
      timesS[k] = parentTimeS;
      seqs[k] = seqs[parent]!;
      events[k] = events[parent];
      k = parent;
    }
    timesS[k] = timeS;
    seqs[k] = seq;
    events[k] = event;
  }

  /** Removes the earliest event and returns it, or undefined when empty. */
  pop(): E | undefined {
    if (this.count === 0) return undefined;
    const { timesS, seqs, events } = this;
    const top = events[0];
    const last = --this.count;
    const timeS = timesS[last]!;
    const seq = seqs[last]!;
    const event = events[last];
    events[last] = undefined;
    if (last > 0) {
      // Sift the last entry down from the root, moving the earliest of the (up to four) children up into the hole.
      let k = 0;
      for (;;) {
        const first = 4 * k + 1;
        if (first >= last) break;
        let child = first;
        let childTimeS = timesS[first]!;
        const end = first + 4 < last ? first + 4 : last;
        for (let c = first + 1; c < end; c++) {
          const t = timesS[c]!;
          if (t < childTimeS || (t === childTimeS && seqs[c]! < seqs[child]!)) {
            child = c;
            childTimeS = t;
          }
        }
        if (timeS < childTimeS || (timeS === childTimeS && seq < seqs[child]!)) break;
        timesS[k] = childTimeS;
        seqs[k] = seqs[child]!;
        events[k] = events[child];
        k = child;
      }
      timesS[k] = timeS;
      seqs[k] = seq;
      events[k] = event;
    }
    return top;
  }

  /** The earliest event's time in seconds, or Infinity when empty. */
  peekTimeS(): number {
    return this.count === 0 ? Infinity : this.timesS[0]!;
  }

  /** The earliest event without removing it, or undefined when empty. */
  peek(): E | undefined {
    return this.count === 0 ? undefined : this.events[0];
  }

  /** Number of queued events (stale ones included until popped). */
  get size(): number {
    return this.count;
  }

  /** Doubles the key arrays' room. */
  private grow(): void {
    const timesS = new Float64Array(2 * this.timesS.length);
    timesS.set(this.timesS);
    const seqs = new Float64Array(2 * this.seqs.length);
    seqs.set(this.seqs);
    this.timesS = timesS;
    this.seqs = seqs;
  }
}
