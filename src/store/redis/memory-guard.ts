import type { Cluster, Redis } from 'ioredis'
import { storeFull, type RedisClient } from './connection.js'

/*
 * The global guard of what every partner shares: Redis's memory. The shipped Redis (deploy/) has a maxmemory and
 * the noeviction policy, so a full Redis refuses every write with an OOM error. Before it comes to that, the
 * guard refuses partners' writes itself with a clear 507 (SANDBOX_ERR_STORE_FULL) once used_memory passes
 * SANDBOX_REDIS_MEMORY_GUARD percent of maxmemory: the rest is left to what keeps the sandbox working (tokens,
 * sessions, the journal, counters). Reads are still served. INFO memory is read on a timer, never per request.
 */

/** How often INFO memory is read: a burst of writes can pass the mark by at most what one second writes. */
export const MEMORY_GUARD_INTERVAL_MS = 1000

/** used_memory and maxmemory of one INFO memory answer (maxmemory 0: no limit). */
export function memoryOf (info: string): { used: number, max: number } {
  const field = (name: string): number => {
    const line = info.split('\r\n').find((l) => l.startsWith(`${name}:`))
    return line === undefined ? 0 : Number(line.slice(name.length + 1))
  }
  return { used: field('used_memory'), max: field('maxmemory') }
}

export class MemoryGuard {
  private full = false
  private readonly timer: NodeJS.Timeout

  constructor (
    private readonly client: RedisClient,
    private readonly cluster: boolean,
    private readonly percent: number,
    private readonly onChange: (full: boolean, used: number, max: number) => void,
    intervalMs = MEMORY_GUARD_INTERVAL_MS
  ) {
    this.timer = setInterval(() => { this.read().catch(() => {}) }, intervalMs)
    this.timer.unref()
  }

  /** Reads the memory now (also at start, so that a sandbox starting on a full Redis refuses writes at once). */
  async read (): Promise<void> {
    // a cluster: the fullest of its primaries (a partner's keys live on one of them)
    const nodes: Redis[] = this.cluster ? (this.client as Cluster).nodes('master') : [this.client as Redis]
    let full = false
    let used = 0
    let max = 0
    for (const node of nodes) {
      const m = memoryOf(await node.info('memory'))
      if (m.max > 0 && m.used * 100 >= m.max * this.percent) full = true
      if (m.max > 0 && (max === 0 || m.used / m.max > used / max)) ({ used, max } = m)
    }
    if (full !== this.full) this.onChange(full, used, max)
    this.full = full
  }

  /** Throws the 507 while Redis is above the mark: called before every write of partners' state. */
  check (): void {
    if (this.full) throw storeFull()
  }

  stop (): void {
    clearInterval(this.timer)
  }
}
