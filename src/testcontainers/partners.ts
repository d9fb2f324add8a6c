import type { StartedTestContainer } from 'testcontainers'

/** A partner of the container's scenario, as a test needs it. */
export interface ScenarioPartner {
  clientId: string
  clientSecret: string
  agents: string[]
  users: Array<{ username: string, password: string }>
}

interface ScenarioFile {
  partners?: Array<{ id: string, secret: string, agents?: Array<{ id: string }>, users?: Array<{ username: string, password: string }> }>
}

/**
 * The partners of the scenario the container started with, read from the image's own scenario file (the
 * control API shows no secret): the image's scenarios, not this package's copy of them, which may be another
 * version. No partners when it cannot be read (a scenario of another place): getClient then needs a secret.
 */
export async function partnersOf (container: StartedTestContainer, scenario: string): Promise<ScenarioPartner[]> {
  if (!/^[a-z0-9][a-z0-9-]*$/.test(scenario)) return []
  const { exitCode, stdout } = await container.exec(['cat', `/app/scenarios/${scenario}.json`])
  if (exitCode !== 0) return []
  const file = JSON.parse(stdout) as ScenarioFile
  return (file.partners ?? []).map((p) => ({
    clientId: p.id,
    clientSecret: p.secret,
    agents: (p.agents ?? []).map((a) => a.id),
    users: (p.users ?? []).map((u) => ({ username: u.username, password: u.password }))
  }))
}
