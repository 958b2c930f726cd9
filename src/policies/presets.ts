import { InvariantError } from '../errors.js';
import { autoscalePolicies, placementPolicies, recoveryPolicies, schedulingPolicies } from './registry.js';

/** A named stack of policies, one per kind, referred to by registry ids. */
export interface PolicyStack {
  readonly scheduling: string;
  readonly placement: string;
  readonly recovery: string;
  readonly autoscale: string;
  /** One line saying what the stack models. */
  readonly description: string;
}

/** Presets by name: what `--policy` and a scenario's `policy` choose from. */
export const presets: Readonly<Record<string, PolicyStack>> = {
  fifo: {
    scheduling: 'fifo',
    placement: 'pack',
    recovery: 'none',
    autoscale: 'none',
    description: 'strict arrival order, gang start, packed placement, no recovery, no auto-scaling',
  },
};

/** Names of all presets, in declaration order. */
export function presetNames(): string[] {
  return Object.keys(presets);
}

/** The stack of a preset; the name must already be validated (unknown names are a bug here). */
export function presetStack(name: string): PolicyStack {
  const stack = presets[name];
  if (!stack) throw new InvariantError(`unknown preset ${name}`);
  return stack;
}

/** Checks that every preset names registered policies; throws InvariantError otherwise. */
export function checkPresets(): void {
  for (const [name, stack] of Object.entries(presets)) {
    const ok =
      stack.scheduling in schedulingPolicies &&
      stack.placement in placementPolicies &&
      recoveryPolicies.includes(stack.recovery) &&
      autoscalePolicies.includes(stack.autoscale);
    if (!ok) throw new InvariantError(`preset ${name} names an unregistered policy`);
  }
}
