// banking-agent-sandbox/testcontainers: the sandbox's image as a Testcontainers module. testcontainers is an
// optional peer dependency: only this entry point loads it.
export { SandboxContainer, StartedSandboxContainer } from './sandbox-container.js'
export type { ScenarioPartner } from './partners.js'
