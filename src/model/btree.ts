import BTreeModule from 'sorted-btree';

/** The B-tree class of `sorted-btree` (an ordered map, O(log n) per change). */
// The package is CommonJS: Node's ES module loader hands over its exports object, a bundler the class.
export const BTree: typeof BTreeModule.default =
  (BTreeModule as { default?: typeof BTreeModule.default }).default ?? (BTreeModule as unknown as typeof BTreeModule.default);

/** An instance of BTree. */
export type BTreeOf<K, V> = InstanceType<typeof BTreeModule.default<K, V>>;

/** Orders number arrays element by element (a shorter prefix first). */
export function compareNumberLists(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  for (let k = 0; k < n; k++) {
    const d = a[k]! - b[k]!;
    if (d !== 0) return d;
  }
  return a.length - b.length;
}
