import { DiagConsoleLogger, DiagLogLevel, diag, trace, type TracerProvider } from '@opentelemetry/api'
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources'
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import type { TracingSettings } from './tracing.js'

/*
 * OpenTelemetry, in a chunk of its own (scripts/bundle.mjs splits at the dynamic import in request-spans.ts):
 * nothing here is loaded unless traces are asked for. It imports nothing of the sandbox's own modules (types
 * only): a module both this chunk and the server's imported would become a chunk of its own, one more file
 * that every start loads. What the sandbox does with it is request-spans.ts's, in the server's chunk.
 */

export { context, propagation, SpanStatusCode, trace, TraceFlags } from '@opentelemetry/api'
export { FastifyOtelInstrumentation } from '@fastify/otel'

/** A non-negative number in a variable, else undefined (the SDK's default). */
function numberOf (env: NodeJS.ProcessEnv, name: string): number | undefined {
  const text = env[name]?.trim()
  const n = text === undefined || text === '' ? NaN : Number(text)
  return Number.isFinite(n) && n >= 0 ? n : undefined
}

const DIAG_LEVELS: Record<string, DiagLogLevel> = { none: DiagLogLevel.NONE, error: DiagLogLevel.ERROR, warn: DiagLogLevel.WARN, info: DiagLogLevel.INFO, debug: DiagLogLevel.DEBUG, verbose: DiagLogLevel.VERBOSE, all: DiagLogLevel.ALL }

export interface Sdk {
  provider: TracerProvider
  /** Exports what is pending and stops. */
  shutdown: () => Promise<void>
}

/**
 * The command's SDK, registered for the process (its context manager, AsyncLocalStorage, and the W3C
 * propagators): spans batched and exported over OTLP/HTTP, protobuf or JSON, to the endpoint the exporter reads
 * from OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT (with their headers, timeout,
 * compression and certificates); sampled as OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG say (the tracer
 * provider reads them); the resource's service.name the given one unless OTEL_SERVICE_NAME or
 * OTEL_RESOURCE_ATTRIBUTES say otherwise.
 */
export function startSdk (settings: TracingSettings, service: { name: string, version: string }, env: NodeJS.ProcessEnv = process.env): Sdk {
  // the SDK's own complaints (an export that failed, a bad sampler argument) are silent unless asked for
  const diagLevel = DIAG_LEVELS[env.OTEL_LOG_LEVEL?.trim().toLowerCase() ?? '']
  if (diagLevel !== undefined) diag.setLogger(new DiagConsoleLogger(), diagLevel)
  const exporter = settings.protocol === 'http/json' ? new JsonTraceExporter() : new ProtobufTraceExporter()
  // the span processor of the SDK 2.x reads its OTEL_BSP_* variables no more: read here, as the spec names them
  const processor = new BatchSpanProcessor(exporter, {
    scheduledDelayMillis: numberOf(env, 'OTEL_BSP_SCHEDULE_DELAY'),
    exportTimeoutMillis: numberOf(env, 'OTEL_BSP_EXPORT_TIMEOUT'),
    maxQueueSize: numberOf(env, 'OTEL_BSP_MAX_QUEUE_SIZE'),
    maxExportBatchSize: numberOf(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE')
  })
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': service.name, 'service.version': service.version }))
    .merge(detectResources({ detectors: [envDetector] }))
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor] })
  provider.register()
  return { provider, shutdown: async () => await provider.shutdown() }
}

/** The tracer provider a host registered with the OpenTelemetry API (a sandbox in its process). */
export function hostProvider (): TracerProvider {
  return trace.getTracerProvider()
}
