import { BTree, type BTreeOf } from './btree.js';

/**
 * Entries a SortedMap keeps in its sorted arrays before it moves them into a B-tree: a change moves
 * at most that many entries (a block copy of a few hundred bytes).
 */
const SMALL_ENTRIES = 64;

/**
 * An ordered map (keys unique by `compare`) for the queues' small sets: a shape class's queued jobs,
 * the classes of a walk. Up to SMALL_ENTRIES entries live in two sorted arrays changed in place,
 * which keep their storage (a B-tree's leaf is spliced at every change, allocating each time, and
 * most of these sets hold a job or two between passes); past that a B-tree holds them, so a large
 * set still costs O(log n) a change, until it empties again.
 */
export class SortedMap<K, V> {
  private readonly keys: (K | undefined)[] = [];
  private readonly values: (V | undefined)[] = [];
  private count = 0;
  private tree: BTreeOf<K, V> | null = null;

  constructor(private readonly compare: (a: K, b: K) => number) {}

  /** Entries held. */
  get size(): number {
    return this.tree !== null ? this.tree.size : this.count;
  }

  /** The value at `key`, or undefined. */
  get(key: K): V | undefined {
    if (this.tree !== null) return this.tree.get(key);
    const k = this.bound(key, false);
    return k < this.count && this.compare(this.keys[k]!, key) === 0 ? this.values[k] : undefined;
  }

  /** Puts `value` at `key` (replacing the value there, if any). */
  set(key: K, value: V): void {
    if (this.tree !== null) {
      this.tree.set(key, value);
      return;
    }
    const k = this.bound(key, false);
    if (k < this.count && this.compare(this.keys[k]!, key) === 0) {
      this.values[k] = value;
      return;
    }
    if (this.count === SMALL_ENTRIES) {
      this.moveIntoTree();
      this.tree!.set(key, value);
      return;
    }
    const { keys, values } = this;
    for (let j = this.count; j > k; j--) {
      keys[j] = keys[j - 1];
      values[j] = values[j - 1];
    }
    keys[k] = key;
    values[k] = value;
    this.count++;
  }

  /** Takes out the entry at `key`; true when there was one. */
  delete(key: K): boolean {
    if (this.tree !== null) {
      const deleted = this.tree.delete(key);
      if (this.tree.size === 0) this.tree = null;
      return deleted;
    }
    const k = this.bound(key, false);
    if (k >= this.count || this.compare(this.keys[k]!, key) !== 0) return false;
    const { keys, values } = this;
    const last = --this.count;
    for (let j = k; j < last; j++) {
      keys[j] = keys[j + 1];
      values[j] = values[j + 1];
    }
    // The slot past the last entry lets go of what it held; the arrays keep their length.
    keys[last] = undefined;
    values[last] = undefined;
    return true;
  }

  /** The smallest key, or undefined when empty. */
  minKey(): K | undefined {
    if (this.tree !== null) return this.tree.minKey();
    return this.count > 0 ? this.keys[0] : undefined;
  }

  /** The smallest key above `key`, or undefined. */
  nextHigherKey(key: K): K | undefined {
    if (this.tree !== null) return this.tree.nextHigherKey(key);
    const k = this.bound(key, true);
    return k < this.count ? this.keys[k] : undefined;
  }

  /**
   * The entry with the smallest key above `key` (the smallest of all when `key` is undefined), put
   * in `reuse` when given (then returned), or undefined when there is none.
   */
  nextHigherPair(key: K | undefined, reuse?: [K, V]): [K, V] | undefined {
    if (this.tree !== null) return this.tree.nextHigherPair(key, reuse);
    const k = key === undefined ? 0 : this.bound(key, true);
    if (k >= this.count) return undefined;
    if (reuse === undefined) return [this.keys[k]!, this.values[k]!];
    reuse[0] = this.keys[k]!;
    reuse[1] = this.values[k]!;
    return reuse;
  }

  /** The first position whose key is not below `key`, or (`above`) whose key is above it. */
  private bound(key: K, above: boolean): number {
    let low = 0;
    let high = this.count;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const order = this.compare(this.keys[mid]!, key);
      if (order < 0 || (above && order === 0)) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** Moves the arrays' entries into a B-tree, emptying the arrays. */
  private moveIntoTree(): void {
    const tree = new BTree<K, V>(undefined, this.compare);
    for (let k = 0; k < this.count; k++) {
      tree.set(this.keys[k]!, this.values[k]!);
      this.keys[k] = undefined;
      this.values[k] = undefined;
    }
    this.count = 0;
    this.tree = tree;
  }
}
