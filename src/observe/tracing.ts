import type { FastifyPluginAsync } from 'fastify'
import { ConfigError } from '../config.js'
import type { Spans } from '../instruments/spans.js'

/*
 * Traces (opt-in): the OpenTelemetry SDK, @fastify/otel and the OTLP exporters are a chunk of their own
 * (observe/otel.ts and what it imports), loaded only when the standard OTEL_* variables ask for traces
 * (request-spans.ts starts them). This module decides that from the environment without loading any of it.
 * docs/observability.md, "Traces".
 */

export type OtlpProtocol = 'http/protobuf' | 'http/json'

/** The service.name of the sandbox's spans unless OTEL_SERVICE_NAME (or OTEL_RESOURCE_ATTRIBUTES) says otherwise. */
export const DEFAULT_SERVICE_NAME = 'banking-sandbox'

/** What the CLI starts the SDK with; the exporter reads the rest of its OTEL_EXPORTER_OTLP_* variables itself. */
export interface TracingSettings {
  protocol: OtlpProtocol
}

/** A sandbox's tracing: handed to the app (server.ts), which registers the plugin first and the spans where its rooms are made. */
export interface Tracing {
  /** The request spans (@fastify/otel) and what the sandbox adds to them; registered before any other hook. */
  plugin: FastifyPluginAsync
  /** Child spans of the request at hand, for the store, the data dir and the identity provider. */
  spans: Spans
  /** Exports the spans still pending (the CLI's SDK is shut down); the plugin calls it when the app closes. */
  close: () => Promise<void>
}

const PROTOCOLS: readonly string[] = ['http/protobuf', 'http/json'] satisfies OtlpProtocol[]

/**
 * Whether the environment asks for traces, by the OpenTelemetry SDK's own variables: off with
 * OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none; on with OTEL_TRACES_EXPORTER=otlp, or, that variable
 * unset (its default is otlp), once an OTLP endpoint is named (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or
 * OTEL_EXPORTER_OTLP_ENDPOINT); else off. Values the sandbox cannot honour (another exporter, the grpc
 * protocol) stop the start with a ConfigError, as a wrong option does.
 */
export function tracingSettings (env: NodeJS.ProcessEnv): TracingSettings | null {
  const value = (name: string): string | undefined => {
    const v = env[name]?.trim()
    return v === undefined || v === '' ? undefined : v
  }
  if (value('OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return null
  const exporter = value('OTEL_TRACES_EXPORTER')
  if (exporter === undefined) {
    if (value('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') === undefined && value('OTEL_EXPORTER_OTLP_ENDPOINT') === undefined) return null
  } else {
    const names = exporter.toLowerCase().split(',').map((s) => s.trim()).filter((s) => s !== '')
    if (names.includes('none')) return null
    if (names.some((n) => n !== 'otlp')) {
      throw new ConfigError(`OTEL_TRACES_EXPORTER = ${JSON.stringify(exporter)}: the sandbox exports traces over OTLP only (otlp), or none to turn them off`)
    }
  }
  const protocolVariable = value('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') === undefined ? 'OTEL_EXPORTER_OTLP_PROTOCOL' : 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
  const protocol = value(protocolVariable)?.toLowerCase() ?? 'http/protobuf'
  if (!PROTOCOLS.includes(protocol)) {
    throw new ConfigError(`${protocolVariable} = ${JSON.stringify(value(protocolVariable))}: the sandbox exports traces over OTLP/HTTP, as ${PROTOCOLS.join(' or ')} (not grpc)`)
  }
  return { protocol: protocol as OtlpProtocol }
}
