import { InvariantError } from '../errors.js';
import { EventQueue } from './event-queue.js';

/** What the engine calls back: the domain side of the simulation. */
export interface EngineHandlers<E> {
  /** True when the event refers to something that has since changed (lazy cancellation by epoch). */
  isStale(event: E): boolean;
  /** Handles one live event at the engine's current time. */
  dispatch(event: E): void;
  /** Called once after the last event of each instant; may schedule more events at the same instant. */
  endOfInstant?(): void;
}

/** Why `run` returned. */
export type RunOutcome = 'drained' | 'horizon';

/** The discrete-event core: a clock and a (time, seq)-ordered queue, with lazy cancellation and coalesced instants. */
export class Engine<E> {
  private readonly queue = new EventQueue<E>();
  private clockS = 0;
  private dispatchedCount = 0;
  private staleCount = 0;

  constructor(private readonly handlers: EngineHandlers<E>) {}

  /** Current simulated time in seconds. */
  get nowS(): number {
    return this.clockS;
  }

  /** Live events dispatched so far. */
  get dispatched(): number {
    return this.dispatchedCount;
  }

  /** Stale events dropped so far. */
  get dropped(): number {
    return this.staleCount;
  }

  /** Events still queued (including stale ones). */
  get pending(): number {
    return this.queue.size;
  }

  /** Schedules `event` at absolute time `timeS`; scheduling in the past is a bug. */
  scheduleAt(timeS: number, event: E): void {
    if (!(timeS >= this.clockS)) {
      throw new InvariantError(`event scheduled at ${timeS}s, before the current time ${this.clockS}s`);
    }
    this.queue.push(timeS, event);
  }

  /** Schedules `event` after `delayS` seconds from now. */
  scheduleIn(delayS: number, event: E): void {
    this.scheduleAt(this.clockS + delayS, event);
  }

  /**
   * Runs events in order until the queue is empty or the next event lies beyond `untilS`;
   * the clock then stands at the last event's time, or at `untilS` when the horizon cut the run.
   */
  run(untilS = Infinity): RunOutcome {
    const queue = this.queue;
    for (;;) {
      if (queue.size === 0) return 'drained';
      const timeS = queue.peekTimeS();
      if (timeS > untilS) {
        this.clockS = untilS;
        return 'horizon';
      }
      const event = queue.pop()!;
      this.clockS = timeS;
      if (this.handlers.isStale(event)) {
        this.staleCount++;
      } else {
        this.dispatchedCount++;
        this.handlers.dispatch(event);
      }
      if (this.handlers.endOfInstant && (queue.size === 0 || queue.peekTimeS() > this.clockS)) {
        this.handlers.endOfInstant();
      }
    }
  }
}
