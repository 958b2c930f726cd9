/**
 * Kubernetes resource quantities (`cpu: "500m"`, `memory: 4Gi`): read into dlsim's units (CPU in
 * thousandths of a core, memory in MiB) and written back the way Kubernetes users write them.
 */

/** Multipliers of Kubernetes' quantity suffixes (binary SI, then decimal SI; "" is 1). */
const SUFFIX_FACTORS: Readonly<Record<string, number>> = {
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
};

/** Kubernetes' quantity grammar: an optional sign, a decimal, then a suffix or a decimal exponent. */
const QUANTITY_PATTERN = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)|[eE]([+-]?\d+))?$/;

const BYTES_PER_MIB = 2 ** 20;

/** The quantity's value in base units (cores, bytes), or null when it is not a non-negative finite quantity. */
function quantityValue(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : null;
  if (typeof value !== 'string') return null;
  const match = QUANTITY_PATTERN.exec(value);
  if (!match) return null;
  const [, sign, digits, suffix, exponent] = match;
  const amount = Number(digits) * (exponent === undefined ? SUFFIX_FACTORS[suffix ?? '']! : 10 ** Number(exponent));
  if (!Number.isFinite(amount) || (sign === '-' && amount !== 0)) return null;
  return amount;
}

/** `amount` rounded up to a whole number, forgiving the binary error of decimal arithmetic (0.1 × 1000). */
function wholeUp(amount: number): number {
  const nearest = Math.round(amount);
  return Math.abs(amount - nearest) <= 1e-9 * Math.max(1, amount) ? nearest : Math.ceil(amount);
}

/** Text of a value for messages: a string quoted, anything else as JSON. */
function shown(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
}

/** Why a CPU quantity is not one, naming it. */
export function cpuQuantityError(value: unknown): string {
  return `expected a CPU quantity like "2", "0.5" or "500m", got ${shown(value)}`;
}

/** Why a memory quantity is not one, naming it. */
export function memoryQuantityError(value: unknown): string {
  return `expected a memory quantity like "4Gi", "4170Mi", "3G" or a number of bytes, got ${shown(value)}`;
}

/**
 * A CPU quantity ("2", "0.5", "500m", or a YAML number of cores) in thousandths of a core, rounded
 * up to a whole one as Kubernetes does; null for anything else (negative, malformed, not finite).
 */
export function parseCpuMilli(value: unknown): number | null {
  const cores = quantityValue(value);
  return cores === null ? null : wholeUp(cores * 1000);
}

/**
 * A memory quantity ("4Gi", "4170Mi", "3G", or plain bytes as text or a YAML number) in MiB,
 * rounded up to a whole MiB; null for anything else (negative, malformed, not finite).
 */
export function parseMemMiB(value: unknown): number | null {
  const bytes = quantityValue(value);
  return bytes === null ? null : wholeUp(bytes / BYTES_PER_MIB);
}

/** CPU as Kubernetes users write it: whole cores as "2", else thousandths as "1500m" (rounded up to a whole thousandth). */
export function formatCpu(cpuMilli: number): string {
  const milli = wholeUp(cpuMilli);
  return milli % 1000 === 0 ? String(milli / 1000) : `${milli}m`;
}

/** Memory as Kubernetes users write it: whole GiB as "8Gi", else "4170Mi" (rounded up to a whole MiB); 0 as "0". */
export function formatMemory(memMiB: number): string {
  const mib = wholeUp(memMiB);
  if (mib === 0) return '0';
  return mib % 1024 === 0 ? `${mib / 1024}Gi` : `${mib}Mi`;
}
