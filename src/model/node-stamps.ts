/**
 * Stamps per node in one array shared by many short-lived users (a search, a scratch), instead of a
 * set each: each use takes a new stamp and marks nodes with it. The array starts afresh, with new
 * stamps, when they run out or it is too short for the cluster at hand.
 */
export class NodeStamps {
  /** Each node's last stamp (replaced when the stamps start afresh: a user keeping it can tell). */
  values = new Uint32Array(0);
  /** The newest stamp taken. */
  last = 0;

  /** A new stamp for a use over `nodes` nodes. */
  next(nodes: number): number {
    if (this.values.length < nodes || this.last === 0xffffffff) {
      this.values = new Uint32Array(Math.max(nodes, this.values.length));
      this.last = 0;
    }
    return ++this.last;
  }
}
