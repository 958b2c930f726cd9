import { PositionsByKey } from './positions-by-key.js';

/** What an empty list reads as. */
const NO_ITEMS: readonly never[] = [];

/** One item of an ordered list, linked to its neighbours. */
export interface ListLink<T> {
  readonly item: T;
  position: number;
  previous: ListLink<T> | null;
  next: ListLink<T> | null;
}

/**
 * Where an item keeps its link in one list: a field of the item's own (no hashing a million items
 * into a map), or by default a map from item to link (for items that have no fields, numbers say).
 */
export interface ListSlot<T> {
  get(item: T): ListLink<T> | null;
  set(item: T, link: ListLink<T> | null): void;
}

/**
 * Each item's key for inserts by key (see OrderedList.insertByKey): a whole number below `count()`,
 * no two listed items sharing one, fixed while the item is listed.
 */
export interface ListKeys<T> {
  of(item: T): number;
  /** Keys there are (asked when the first insert by key is made). */
  count(): number;
}

/** A slot in a map of its own, for items that keep no link themselves. */
function mapSlot<T>(): ListSlot<T> {
  const links = new Map<T, ListLink<T>>();
  return {
    get: (item) => links.get(item) ?? null,
    set: (item, link) => void (link === null ? links.delete(item) : links.set(item, link)),
  };
}

/**
 * A list of distinct items that is appended to, removed from anywhere and read in order, each
 * append or removal costing O(1) (a doubly linked list, each item's link kept in its slot; the array
 * form is built only when read after a change). Each item has a numeric position that orders it
 * (a later item has a larger one): an insert between two items takes the midpoint. The job queue
 * and the running list of a run are kept this way, so that starting one job out of a queue of a
 * million does not shift the other million.
 */
export class OrderedList<T> {
  private count = 0;
  private head: ListLink<T> | null = null;
  private tail: ListLink<T> | null = null;
  private cached: T[] | null = [];
  /** The links by key, made at the first insert by key, then kept as items come and go. */
  private byKey: PositionsByKey<ListLink<T>> | null = null;

  /** `keys`: the items' keys, for inserts by key (none: the list takes none). */
  constructor(
    private readonly slot: ListSlot<T> = mapSlot(),
    private readonly keys: ListKeys<T> | null = null,
  ) {}

  /** Items in the list. */
  get size(): number {
    return this.count;
  }

  /** The first item, or undefined when the list is empty. */
  get first(): T | undefined {
    return this.head?.item;
  }

  /** True when the item is in the list. */
  has(item: T): boolean {
    return this.slot.get(item) !== null;
  }

  /** The items in order, read lazily: costs the items read, not the list's length. */
  values(): Iterable<T> {
    if (this.cached !== null) return this.cached;
    const first = this.head;
    if (first === null) return NO_ITEMS;
    return new LinkWalk(first);
  }

  /** The items in order, as an array (rebuilt only after a change). */
  toArray(): readonly T[] {
    if (this.cached === null) {
      const items: T[] = [];
      for (let link = this.head; link !== null; link = link.next) items.push(link.item);
      this.cached = items;
    }
    return this.cached;
  }

  /** The item's place in the list (smaller comes first; kept until the list is renumbered), or undefined. */
  positionOf(item: T): number | undefined {
    return this.slot.get(item)?.position;
  }

  /** Appends an item (already in the list: an error of the caller). */
  push(item: T): void {
    this.linkAfter(this.tail, item, (this.tail?.position ?? 0) + 1);
  }

  /**
   * Inserts an item after the item last in the list whose key is at most the item's own (at the
   * front when none is): the place an ordered insert from the back of an array finds, in O(log keys)
   * whatever the list holds. Returns true when the list had to number its items afresh (every
   * position changed). Only for a list given keys.
   */
  insertByKey(item: T): boolean {
    const keys = this.keys!;
    if (this.byKey === null) {
      this.byKey = new PositionsByKey<ListLink<T>>(keys.count());
      for (let link = this.head; link !== null; link = link.next) this.byKey.set(keys.of(link.item), link);
    }
    const after = this.byKey.lastAtMost(keys.of(item));
    const before = after === null ? this.head : after.next;
    if (before === null) {
      this.linkAfter(after, item, (after?.position ?? 0) + 1);
      return false;
    }
    const low = after?.position ?? before.position - 1;
    const middle = (low + before.position) / 2;
    if (middle > low && middle < before.position) {
      this.linkAfter(after, item, middle);
      return false;
    }
    // Positions this close have run out of precision: number them afresh and try again.
    this.renumber();
    this.insertByKey(item);
    return true;
  }

  /** Removes an item; returns false when it was not in the list. */
  delete(item: T): boolean {
    const link = this.slot.get(item);
    if (link === null) return false;
    if (link.previous !== null) link.previous.next = link.next;
    else this.head = link.next;
    if (link.next !== null) link.next.previous = link.previous;
    else this.tail = link.previous;
    this.slot.set(item, null);
    this.byKey?.clear(this.keys!.of(item));
    this.count--;
    this.cached = null;
    return true;
  }

  /** Links the item after `after` (at the front when null) with the given position. */
  private linkAfter(after: ListLink<T> | null, item: T, position: number): void {
    const next = after === null ? this.head : after.next;
    const link: ListLink<T> = { item, position, previous: after, next };
    if (after !== null) after.next = link;
    else this.head = link;
    if (next !== null) next.previous = link;
    else this.tail = link;
    this.slot.set(item, link);
    this.byKey?.set(this.keys!.of(item), link);
    this.count++;
    this.cached = null;
  }

  private renumber(): void {
    let position = 1;
    for (let link = this.head; link !== null; link = link.next) link.position = position++;
    this.byKey?.refresh();
  }
}

/**
 * Walks linked items from `first`, handing out one result object it updates (a for-of reads each
 * result before asking for the next): a walk allocates nothing per item, as a generator would. As
 * a generator's loop did, it reads an item's successor only when asked for the next one. It is
 * what values() returns: its own iterator the first time one is asked of it, a new walk after that
 * (an object literal with a computed symbol key, as the iterable, cost about a microsecond at each
 * scheduling pass over a non-empty queue).
 */
class LinkWalk<T> implements IterableIterator<T> {
  private readonly result: IteratorResult<T> = { done: false, value: undefined as T };
  /** The link handed out last (null: none yet). */
  private last: ListLink<T> | null = null;
  private finished = false;
  /** It was handed out as an iterator already. */
  private handedOut = false;

  constructor(private readonly first: ListLink<T>) {}

  [Symbol.iterator](): IterableIterator<T> {
    if (this.handedOut) return new LinkWalk(this.first);
    this.handedOut = true;
    return this;
  }

  next(): IteratorResult<T> {
    if (this.finished) return DONE;
    const link = this.last === null ? this.first : this.last.next;
    if (link === null) {
      this.finished = true;
      return DONE;
    }
    this.last = link;
    (this.result as { value: T }).value = link.item;
    return this.result;
  }
}

/** The result of a finished walk. */
const DONE: IteratorResult<never> = { done: true, value: undefined };
