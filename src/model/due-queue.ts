import FastPriorityQueue from 'fastpriorityqueue';

/**
 * Items due at given times, taken earliest first, items due at the same time in the order they were
 * added. The times sit in typed arrays by slot and the heap orders slot numbers, so ordering reads
 * no item (a heap of a hundred thousand items compares in a megabyte, not across the items).
 * An item is not taken out before it is due: one its caller no longer wants is passed over when it
 * comes (lazy deletion), so an add costs O(log n) and nothing else does until then.
 */
export class DueQueue<T> {
  private dueS = new Float64Array(64);
  /** Each slot's place in the order of adds (ties of `dueS`). */
  private order = new Float64Array(64);
  private readonly items: (T | undefined)[] = [];
  /** Slots given back by `poll`, used again before new ones. */
  private readonly freeSlots: number[] = [];
  private slotsUsed = 0;
  private adds = 0;
  private readonly heap = new FastPriorityQueue<number>((a, b) => {
    const dueA = this.dueS[a]!;
    const dueB = this.dueS[b]!;
    return dueA < dueB || (dueA === dueB && this.order[a]! < this.order[b]!);
  });

  /** Items held. */
  get size(): number {
    return this.heap.size;
  }

  /** Adds `item`, due at `dueS`. */
  add(dueS: number, item: T): void {
    let slot = this.freeSlots.pop();
    if (slot === undefined) {
      if (this.slotsUsed === this.dueS.length) this.grow();
      slot = this.slotsUsed++;
    }
    this.dueS[slot] = dueS;
    this.order[slot] = this.adds++;
    this.items[slot] = item;
    this.heap.add(slot);
  }

  /** The earliest due time held, in seconds (Infinity when empty). */
  nextDueS(): number {
    const slot = this.heap.peek();
    return slot === undefined ? Infinity : this.dueS[slot]!;
  }

  /** Takes out the earliest item (undefined when empty). */
  poll(): T | undefined {
    const slot = this.heap.poll();
    if (slot === undefined) return undefined;
    const item = this.items[slot];
    this.items[slot] = undefined;
    this.freeSlots.push(slot);
    return item;
  }

  private grow(): void {
    const dueS = new Float64Array(this.dueS.length * 2);
    dueS.set(this.dueS);
    this.dueS = dueS;
    const order = new Float64Array(this.order.length * 2);
    order.set(this.order);
    this.order = order;
  }
}
