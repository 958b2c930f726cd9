/**
 * The links of an ordered list by their items' keys (whole numbers below a bound), with a tree of
 * position maxima over key ranges, so that the listed item of key at most k that stands last in
 * the list is found in O(log keys), not by scanning the list from its end. Written here: an
 * iterative max segment tree over typed arrays is a few lines, and the ordered-map libraries answer
 * "largest key at most k", not "largest position among keys at most k".
 */
export class PositionsByKey<L extends { readonly position: number }> {
  /** Leaves: a power of two at least the number of keys. */
  private readonly leaves: number;
  /** Node n covers keys of its leaves; 1 is the root, leaf of key k at leaves + k; -Infinity: none listed. */
  private readonly maxPosition: Float64Array;
  private readonly links: (L | null)[];

  constructor(keyCount: number) {
    let leaves = 1;
    while (leaves < keyCount) leaves *= 2;
    this.leaves = leaves;
    this.maxPosition = new Float64Array(2 * leaves).fill(-Infinity);
    this.links = new Array<L | null>(keyCount).fill(null);
  }

  /** Lists the link at its item's key (its position as it is now). */
  set(key: number, link: L): void {
    this.links[key] = link;
    this.update(key, link.position);
  }

  /** The key's item left the list. */
  clear(key: number): void {
    this.links[key] = null;
    this.update(key, -Infinity);
  }

  /** Takes every listed link's position again (after the list numbered its items afresh). */
  refresh(): void {
    const { maxPosition, leaves, links } = this;
    for (let key = 0; key < links.length; key++) maxPosition[leaves + key] = links[key]?.position ?? -Infinity;
    for (let node = leaves - 1; node >= 1; node--) maxPosition[node] = Math.max(maxPosition[2 * node]!, maxPosition[2 * node + 1]!);
  }

  /** Of the listed items with key at most `key`, the link of the one last in the list; null when none. */
  lastAtMost(key: number): L | null {
    const { maxPosition, leaves } = this;
    let best = -Infinity;
    let bestNode = 0;
    // The nodes covering keys [0, key], bottom up (half-open node range [low, high)).
    for (let low = leaves, high = leaves + Math.min(key, this.links.length - 1) + 1; low < high; low >>= 1, high >>= 1) {
      if ((low & 1) === 1) {
        if (maxPosition[low]! > best) (best = maxPosition[low]!), (bestNode = low);
        low++;
      }
      if ((high & 1) === 1) {
        high--;
        if (maxPosition[high]! > best) (best = maxPosition[high]!), (bestNode = high);
      }
    }
    if (best === -Infinity) return null;
    // Positions are distinct: down the child that holds the maximum.
    let node = bestNode;
    while (node < leaves) node = maxPosition[2 * node] === maxPosition[node] ? 2 * node : 2 * node + 1;
    return this.links[node - leaves]!;
  }

  private update(key: number, position: number): void {
    const maxPosition = this.maxPosition;
    let node = this.leaves + key;
    maxPosition[node] = position;
    for (node >>= 1; node >= 1; node >>= 1) {
      const most = Math.max(maxPosition[2 * node]!, maxPosition[2 * node + 1]!);
      if (maxPosition[node] === most) break;
      maxPosition[node] = most;
    }
  }
}
