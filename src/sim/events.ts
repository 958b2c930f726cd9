/** Every kind of event the simulation handles (one handler per kind in simulation.ts). */
export type SimEvent =
  /** The job at this index of the scenario's job list is submitted. */
  | { readonly kind: 'job-arrival'; readonly jobIndex: number }
  /** A running job reaches its last step; stale when the job's epoch moved on. */
  | { readonly kind: 'job-finish'; readonly jobId: string; readonly epoch: number }
  /** A paused job (resize, restart) resumes training; stale when the job's epoch moved on. */
  | { readonly kind: 'job-resume'; readonly jobId: string; readonly epoch: number }
  /** A running job's speed is multiplied by `factor` from now on (a straggler, thermal slowdown, …). */
  | { readonly kind: 'job-speed-factor'; readonly jobId: string; readonly factor: number }
  /** A periodic policy asks to be consulted. */
  | { readonly kind: 'policy-tick' };
