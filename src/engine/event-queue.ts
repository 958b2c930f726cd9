import FastPriorityQueue from 'fastpriorityqueue';

/** An event in the queue: its time in seconds, its scheduling sequence number, and the payload. */
export interface QueuedEvent<E> {
  readonly timeS: number;
  readonly seq: number;
  readonly event: E;
}

/** A min-heap of events ordered by (time, seq): equal times pop in the order they were pushed. */
export class EventQueue<E> {
  private readonly heap = new FastPriorityQueue<QueuedEvent<E>>(
    (a, b) => a.timeS < b.timeS || (a.timeS === b.timeS && a.seq < b.seq),
  );
  private nextSeq = 0;

  /** Adds an event at `timeS` (seconds); returns its sequence number. */
  push(timeS: number, event: E): number {
    const seq = this.nextSeq++;
    this.heap.add({ timeS, seq, event });
    return seq;
  }

  /** Removes and returns the earliest event, or undefined when empty. */
  pop(): QueuedEvent<E> | undefined {
    return this.heap.poll();
  }

  /** The earliest event without removing it. */
  peek(): QueuedEvent<E> | undefined {
    return this.heap.peek();
  }

  /** Number of queued events (stale ones included until popped). */
  get size(): number {
    return this.heap.size;
  }
}
