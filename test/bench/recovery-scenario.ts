/**
 * A baselines fixture: a 16-node cluster with one elastic training job for `duration` under 10x
 * Ant's fault rates, compared under fifo and dlrover on two seeds, so that recovery matters.
 */
export function recoveryScenario(name: string, duration: string): string {
  return `name: ${name}
seed: 1
policy: dlrover
compare: [fifo, dlrover]
baselineSeeds: 2
cluster:
  nodes:
    - {group: a100, count: 16, gpus: 8, gpuType: A100, cpuCores: 96, memGiB: 1024}
workload:
  jobs:
    - {id: llm, kind: allreduce, replicas: 14, gpus: 8, cpuCores: 64, memGiB: 800, duration: ${duration}, stepTime: 10s, startup: 10m, elastic: {min: 10, max: 14, unit: 1}, checkpoint: {interval: 1h, save: 5m, load: 5m}}
faults:
  catalog: ant-2023
  scale: 10
`;
}
