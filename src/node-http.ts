import { createRequire } from 'node:module'
import type * as Http from 'node:http'

/*
 * Node's http module as CommonJS exports. An ES module's `import ... from 'node:http'` makes Node build the
 * module's ESM facade, which reads every export, lazy ones included: among them the WebSocket classes, whose
 * first read loads Node's copy of undici and, through it, http2 (about 0.1 s of every start on Node 22, 24 and
 * 26). Fastify itself requires http the CommonJS way; the sandbox's own modules take it from here.
 */
const http = createRequire(import.meta.url)('node:http') as typeof Http

export const { IncomingMessage, ServerResponse, STATUS_CODES, createServer } = http
