import { BTree } from '../model/btree.js';

/**
 * A list of distinct items that is appended to, removed from anywhere and read in order, each
 * change costing O(log n) (a B-tree of positions; the array form is built only when read after a
 * change). The job queue and the running list of a run are kept this way, so that starting one job
 * out of a queue of a million does not shift the other million.
 */
export class OrderedList<T> {
  private readonly tree = new BTree<number, T>();
  private readonly positions = new Map<T, number>();
  private cached: T[] | null = [];

  /** Items in the list. */
  get size(): number {
    return this.positions.size;
  }

  /** True when the item is in the list. */
  has(item: T): boolean {
    return this.positions.has(item);
  }

  /** The items in order, read lazily: costs the items read, not the list's length. */
  values(): Iterable<T> {
    return this.cached ?? this.tree.values();
  }

  /** The items in order, as an array (rebuilt only after a change). */
  toArray(): readonly T[] {
    this.cached ??= this.tree.valuesArray();
    return this.cached;
  }

  /** The item's place in the list (smaller comes first; kept until the list is renumbered), or undefined. */
  positionOf(item: T): number | undefined {
    return this.positions.get(item);
  }

  /** Appends an item (already in the list: an error of the caller). */
  push(item: T): void {
    this.insertAt(item, (this.tree.maxKey() ?? 0) + 1);
  }

  /**
   * Inserts an item after the last item, scanning back from the end, that `goesBefore` it (at the
   * front when none does): the place an ordered insert from the back finds in an array. Returns
   * true when the list had to number its items afresh (every position changed).
   */
  insertFromBack(item: T, goesBefore: (other: T) => boolean): boolean {
    let after: number | undefined;
    let before: number | undefined;
    for (const [position, other] of this.tree.entriesReversed()) {
      if (goesBefore(other)) {
        after = position;
        break;
      }
      before = position;
    }
    if (before === undefined) {
      this.insertAt(item, (after ?? 0) + 1);
      return false;
    }
    const low = after ?? before - 1;
    const middle = (low + before) / 2;
    if (middle > low && middle < before) {
      this.insertAt(item, middle);
      return false;
    }
    // Positions this close have run out of precision: number them afresh and try again.
    this.renumber();
    this.insertFromBack(item, goesBefore);
    return true;
  }

  /** Removes an item; returns false when it was not in the list. */
  delete(item: T): boolean {
    const position = this.positions.get(item);
    if (position === undefined) return false;
    this.tree.delete(position);
    this.positions.delete(item);
    this.cached = null;
    return true;
  }

  private insertAt(item: T, position: number): void {
    this.tree.set(position, item);
    this.positions.set(item, position);
    this.cached = null;
  }

  private renumber(): void {
    const items = this.tree.valuesArray();
    this.tree.clear();
    this.positions.clear();
    items.forEach((item, index) => this.insertAt(item, index + 1));
  }
}
