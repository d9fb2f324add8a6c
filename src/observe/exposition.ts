import type { Metric, Registry } from 'prom-client'
import type { Family } from './series.js'

/*
 * GET /metrics (management.ts): the sandbox's families (series.ts) and Node's process metrics, formatted by
 * prom-client's Registry in Prometheus' text format 0.0.4, or in OpenMetrics 1.0 when the scraper asks for it.
 * prom-client is loaded here, at the first scrape's preparation: a sandbox with metrics off, or one that only
 * serves app.inject() (tests), never loads it.
 */

type PromClient = typeof import('prom-client')

let promClient: Promise<PromClient> | undefined
/** prom-client, loaded once (it is CommonJS: the bundle's chunk of it gives module.exports as the default). */
async function load (): Promise<PromClient> {
  return await (promClient ??= import('prom-client').then((m) => (m as unknown as { default?: PromClient }).default ?? m))
}

// prom-client's default metrics that are gauges named *_total, which promtool check metrics refuses (a _total
// is a counter's): each is the sum of the gauge of the same name without _total, by type, which stays
const GAUGES_NAMED_TOTAL = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']

let processRegistry: Promise<Registry> | undefined
/**
 * Node's process metrics (CPU, memory, heap, GC, event-loop lag, handles), once per process: they describe the
 * process, which every sandbox in it shares, and prom-client's collectors cannot be stopped (an event-loop
 * monitor and a GC observer per registry would pile up with every sandbox a process starts and stops). Made at the
 * first scrape, so that what they measure (GC pauses, event-loop lag) is counted from then on; the CPU and memory
 * figures are the process's whole life's.
 */
export async function processMetrics (): Promise<Registry> {
  return await (processRegistry ??= load().then((prom) => {
    const registry = new prom.Registry()
    prom.collectDefaultMetrics({ register: registry })
    for (const name of GAUGES_NAMED_TOTAL) registry.removeSingleMetric(name)
    return registry
  }))
}

const OPENMETRICS = 'application/openmetrics-text'

/** Whether an Accept header asks for OpenMetrics (as Prometheus does when it can parse it). */
export function wantsOpenMetrics (accept: string | undefined): boolean {
  if (accept === undefined || !accept.includes(OPENMETRICS)) return false
  // refused explicitly: application/openmetrics-text;q=0
  return accept.split(',').some((part) => part.trim().startsWith(OPENMETRICS) && !/;\s*q=0(\.0*)?\s*(;|$)/.test(part))
}

/**
 * A counter as an OpenMetrics registry must see it. prom-client's Registry.metrics() in OpenMetrics renames each
 * counter it is given in place (x_total becomes x, and _total goes on each sample): the same metric object
 * in the 0.0.4 output afterwards would lose its _total. It gets a wrapper instead, renamed in its stead.
 */
function openMetricsCounter (metric: Family | Metric): Family {
  const m = metric as unknown as Family
  return {
    name: m.name,
    help: m.help,
    type: 'counter',
    aggregator: 'sum',
    get: async () => {
      const data = await m.get()
      return { ...data, name: data.name.replace(/_total$/, '') }
    },
    reset: () => {}
  }
}

/** The exposition of these families and the process's metrics: its text and its Content-Type. */
export async function exposition (families: readonly Family[], openMetrics: boolean): Promise<{ text: string, contentType: string }> {
  const prom = await load()
  // (the typings declare no constructor argument; the content type is one)
  const Made = prom.Registry as unknown as new (contentType: string) => Registry
  const registry = new Made(openMetrics ? prom.Registry.OPENMETRICS_CONTENT_TYPE : prom.Registry.PROMETHEUS_CONTENT_TYPE)
  const all: Array<Family | Metric> = [...families, ...(await processMetrics()).getMetricsAsArray() as unknown as Metric[]]
  for (const metric of all) {
    const registered = openMetrics && (metric as Family).type === 'counter' ? openMetricsCounter(metric) : metric
    registry.registerMetric(registered as unknown as Metric)
  }
  return { text: await registry.metrics(), contentType: registry.contentType }
}
