/** What an empty list reads as. */
const NO_ITEMS: readonly never[] = [];

/** One item of an ordered list, linked to its neighbours. */
interface Link<T> {
  readonly item: T;
  position: number;
  previous: Link<T> | null;
  next: Link<T> | null;
}

/**
 * A list of distinct items that is appended to, removed from anywhere and read in order, each
 * append or removal costing O(1) (a doubly linked list with a map from item to link; the array
 * form is built only when read after a change). Each item has a numeric position that orders it
 * (a later item has a larger one): an insert between two items takes the midpoint. The job queue
 * and the running list of a run are kept this way, so that starting one job out of a queue of a
 * million does not shift the other million.
 */
export class OrderedList<T> {
  private readonly links = new Map<T, Link<T>>();
  private head: Link<T> | null = null;
  private tail: Link<T> | null = null;
  private cached: T[] | null = [];

  /** Items in the list. */
  get size(): number {
    return this.links.size;
  }

  /** True when the item is in the list. */
  has(item: T): boolean {
    return this.links.has(item);
  }

  /** The items in order, read lazily: costs the items read, not the list's length. */
  values(): Iterable<T> {
    if (this.cached !== null) return this.cached;
    const first = this.head;
    if (first === null) return NO_ITEMS;
    return {
      *[Symbol.iterator]() {
        for (let link: Link<T> | null = first; link !== null; link = link.next) yield link.item;
      },
    };
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
    return this.links.get(item)?.position;
  }

  /** Appends an item (already in the list: an error of the caller). */
  push(item: T): void {
    this.linkAfter(this.tail, item, (this.tail?.position ?? 0) + 1);
  }

  /**
   * Inserts an item after the last item, scanning back from the end, that `goesBefore` it (at the
   * front when none does): the place an ordered insert from the back finds in an array. Returns
   * true when the list had to number its items afresh (every position changed).
   */
  insertFromBack(item: T, goesBefore: (other: T) => boolean): boolean {
    let after = this.tail;
    while (after !== null && !goesBefore(after.item)) after = after.previous;
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
    this.insertFromBack(item, goesBefore);
    return true;
  }

  /** Removes an item; returns false when it was not in the list. */
  delete(item: T): boolean {
    const link = this.links.get(item);
    if (link === undefined) return false;
    if (link.previous !== null) link.previous.next = link.next;
    else this.head = link.next;
    if (link.next !== null) link.next.previous = link.previous;
    else this.tail = link.previous;
    this.links.delete(item);
    this.cached = null;
    return true;
  }

  /** Links the item after `after` (at the front when null) with the given position. */
  private linkAfter(after: Link<T> | null, item: T, position: number): void {
    const next = after === null ? this.head : after.next;
    const link: Link<T> = { item, position, previous: after, next };
    if (after !== null) after.next = link;
    else this.head = link;
    if (next !== null) next.previous = link;
    else this.tail = link;
    this.links.set(item, link);
    this.cached = null;
  }

  private renumber(): void {
    let position = 1;
    for (let link = this.head; link !== null; link = link.next) link.position = position++;
  }
}
