// cephes ships types (index.d.ts) but its package.json "exports" does not point at them, so
// TypeScript's NodeNext resolution cannot see them: the part dlsim uses, declared here.
declare module 'cephes' {
  /** The cephes functions dlsim uses (a WebAssembly build of the cephes C library). */
  const cephes: {
    /** Resolves once the WebAssembly module is compiled; call nothing before. */
    readonly compiled: Promise<void>;
    /** Inverse of Student's t distribution function: t such that P(T ≤ t) = p for k degrees of freedom. */
    stdtri(k: number, p: number): number;
  };
  export default cephes;
}
