/**
 * The nodes whose free capacity grew, each listed once at its last growth: a count of growths
 * serves as a mark, and the nodes grown since a mark are read back in O(their number). Memory is
 * one entry per node, however long the run (a log of every growth held one per released task).
 */
export class GrowthLog {
  /** Growths so far. */
  private count = 0;
  /** Per node, the count its last growth made (0: never grew). */
  private readonly grewAt: Float64Array;
  /** Nodes in order of their last growth: a doubly linked list through these (-1 ends it). */
  private readonly older: Int32Array;
  private readonly newer: Int32Array;
  private newest = -1;

  constructor(nodeCount: number) {
    this.grewAt = new Float64Array(nodeCount);
    this.older = new Int32Array(nodeCount).fill(-1);
    this.newer = new Int32Array(nodeCount).fill(-1);
  }

  /** Growths so far: a mark for `since`. */
  get mark(): number {
    return this.count;
  }

  /** The node's free capacity grew: it moves to the newest end. */
  grew(nodeIndex: number): void {
    this.count++;
    if (this.newest !== nodeIndex) {
      if (this.grewAt[nodeIndex] !== 0) this.unlink(nodeIndex);
      this.older[nodeIndex] = this.newest;
      this.newer[nodeIndex] = -1;
      if (this.newest >= 0) this.newer[this.newest] = nodeIndex;
      this.newest = nodeIndex;
    }
    this.grewAt[nodeIndex] = this.count;
  }

  /** The nodes that grew after `mark` (each once), the one whose last growth came first first. */
  since(mark: number): number[] {
    const nodes: number[] = [];
    for (let i = this.newest; i >= 0 && this.grewAt[i]! > mark; i = this.older[i]!) nodes.push(i);
    return nodes.reverse();
  }

  private unlink(nodeIndex: number): void {
    const older = this.older[nodeIndex]!;
    const newer = this.newer[nodeIndex]!;
    if (older >= 0) this.newer[older] = newer;
    if (newer >= 0) this.older[newer] = older;
  }
}
