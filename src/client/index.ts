// banking-agent-sandbox/client: SandboxClient against any sandbox URL (hosted, in a container, in-process).
// Nothing here imports the sandbox itself: the client needs Node's fetch and openapi-fetch only.
export { SandboxClient, type SandboxClientOptions } from './sandbox-client.js'
export { SandboxApiError, unwrap } from './errors.js'
export { RequestStream } from './request-stream.js'
export { TOKEN_PATH, type TokenSet } from './tokens.js'
export type * from './types.js'
