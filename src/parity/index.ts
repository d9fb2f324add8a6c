import { validationProbes } from './breaks.js'
import { compareAnswers } from './compare.js'
import { Side, type SideSettings } from './context.js'
import { applyDeclared, counts, loadDeclared, type Declared } from './declared.js'
import { Traffic } from './http.js'
import { apiProbes, createProbes, tokenProbes } from './probes.js'
import { Redactor } from './redact.js'
import { show, type ParityReport, type ShownOutcome } from './reports/model.js'
import { writeReports } from './reports/write.js'
import { WRITES, runProbe } from './runner.js'
import { SchemaCheck } from './schema-check.js'
import { diffSpecs, loadSpec } from './spec-diff.js'
import type { Difference, Exchange, Probe, ProbeOutcome } from './types.js'

/*
 * runParity (docs/parity.md): the probe suite against a target and against a reference sandbox started here,
 * in this process, then the differences. It uses what a bank's real service has, the bank API and the token
 * endpoint, and never /__sandbox. Both sides are probed one request at a time, in the same order.
 */

export interface ParityOptions {
  /** The target's base URL: the bank API is at {target}/api. */
  target: string
  /** The target's token endpoint; by default the sandbox's layout under the target ({target}/auth/realms/sandbox/...). */
  tokenUrl?: string
  clientId: string
  clientSecret: string
  agentId: string
  /** An Agent-Id not bound to the client (another partner's agent), for the 403 probes; default 999999999. */
  otherAgentId?: string
  /** A test user of the client, for the password grant and GET /api/users/current/customers. */
  username?: string
  password?: string
  /** A guarantee id known to the target (no list gives one), for 4.13's valid read. */
  guaranteeId?: string
  /** No POST, PUT, PATCH or DELETE to the bank API (the token endpoint still gets its POSTs). */
  readOnly?: boolean
  /** The target's OpenAPI document, a URL or a file (springdoc's default is {target}/v3/api-docs). */
  targetSpec?: string
  /** A JSON file of declared divergences (docs/parity-declared.json is the starting one). */
  declared?: string
  /** Where the reports go; none are written without it. */
  out?: string
}

export interface ParityResult {
  /** 0: no undeclared difference; 1: differences; 2: could not run (`problem` says why, in one line). */
  exitCode: 0 | 1 | 2
  problem?: string
  report?: ParityReport
  /** Report files written, by kind. */
  files?: Record<string, string>
  /** Requests the target's bank API received, by method (the token endpoint's left out). */
  targetMethods: Record<string, number>
}

/** A run that cannot start or cannot go on: exit code 2 with the reason. */
export class CannotRun extends Error {}

/**
 * The reference: a sandbox started in this process for the run (the library's startSandbox, handed in by
 * library.ts, so that the kit stays below the package's root and imports nothing above it).
 */
export interface ReferenceSandbox {
  url: string
  tokenUrl: string
  partners: Array<{ clientId: string, clientSecret: string, agents: string[], users: Array<{ username: string, password: string }> }>
  stop: () => Promise<void>
}

function trimSlash (u: string): string {
  return u.replace(/\/+$/, '')
}

function sentPath (ex: Exchange): string {
  return new URL(ex.request.url).pathname
}

async function referenceDocument (ref: ReferenceSandbox): Promise<Record<string, unknown>> {
  const res = await fetch(`${ref.url}/api/docs/apidocs`, { headers: { accept: 'application/json' } })
  return await res.json() as Record<string, unknown>
}

export async function runParity (options: ParityOptions, startReference: () => Promise<ReferenceSandbox>): Promise<ParityResult> {
  const started = new Date()
  const redactor = new Redactor()
  const targetTraffic = new Traffic('target')
  const apiMethods = (): Record<string, number> => {
    const out: Record<string, number> = {}
    for (const ex of targetTraffic.exchanges) if (ex.request.url.startsWith(`${trimSlash(options.target)}/api`)) out[ex.request.method] = (out[ex.request.method] ?? 0) + 1
    return out
  }
  let declared: Declared[] = []
  try {
    if (options.declared !== undefined) declared = await loadDeclared(options.declared)
    new URL(options.target) // eslint-disable-line no-new -- a malformed --target is a reason not to run
  } catch (err) {
    return { exitCode: 2, problem: (err as Error).message.split('\n')[0], targetMethods: {} }
  }
  const base = trimSlash(options.target)
  const targetSettings: SideSettings = {
    baseUrl: base,
    tokenUrl: options.tokenUrl ?? `${base}/auth/realms/sandbox/protocol/openid-connect/token`,
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    agentId: options.agentId,
    otherAgentId: options.otherAgentId ?? '999999999',
    user: options.username !== undefined && options.password !== undefined ? { username: options.username, password: options.password } : undefined,
    guaranteeId: options.guaranteeId
  }
  const target = new Side('target', targetSettings, targetTraffic, redactor)
  // the target's credentials first: a run that cannot be made says so before a reference is started
  const refused = await target.signIn()
  if (refused !== undefined) return { exitCode: 2, problem: refused, targetMethods: apiMethods() }
  const ref = await startReference()
  try {
    const [partner, other] = ref.partners
    const referenceSettings: SideSettings = {
      baseUrl: ref.url,
      tokenUrl: ref.tokenUrl,
      clientId: partner.clientId,
      clientSecret: partner.clientSecret,
      agentId: partner.agents[0],
      otherAgentId: other?.agents[0] ?? '999999999',
      user: targetSettings.user === undefined ? undefined : partner.users[0],
      guaranteeId: options.guaranteeId === undefined ? undefined : 'VALID-PARITY-0001'
    }
    const reference = new Side('reference', referenceSettings, new Traffic('reference'), redactor)
    const problem = await reference.signIn()
    if (problem !== undefined) throw new CannotRun(problem)
    await reference.walk()
    await target.walk()
    if (target.traffic.exchanges.every((ex) => ex.label === 'walk:token' || ex.label === 'walk:user-token' || ex.answer === undefined)) {
      const failure = target.traffic.exchanges.find((ex) => ex.answer === undefined)?.failure ?? 'no answer'
      return { exitCode: 2, problem: `target ${base}/api unreachable (${failure})`, targetMethods: apiMethods() }
    }

    const doc = await referenceDocument(ref)
    const check = new SchemaCheck(doc)
    const paths = Object.keys(doc.paths as object)
    const probes: Probe[] = [...tokenProbes(), ...apiProbes(), ...validationProbes(doc), ...createProbes()]
    const outcomes: ProbeOutcome[] = []
    for (const probe of probes) {
      const outcome: ProbeOutcome = { probe, state: 'same', differences: [] }
      outcomes.push(outcome)
      if (options.readOnly === true && probe.path !== 'token' && WRITES.has(probe.method)) {
        outcome.state = 'skipped'
        outcome.skipped = '--read-only: a write to the bank API'
        continue
      }
      const r = await runProbe(probe, reference)
      const t = 'skipped' in r ? r : await runProbe(probe, target)
      if ('skipped' in r || 'skipped' in t) {
        outcome.state = 'skipped'
        outcome.skipped = 'skipped' in r ? r.skipped : (t as { skipped: string }).skipped
        if (!('skipped' in r)) outcome.reference = r
        continue
      }
      outcome.reference = r
      outcome.target = t
      const diff = (aspect: Difference['aspect'], detail: string): Difference => ({ probe: probe.id, operation: probe.operation, aspect, detail })
      if (r.answer === undefined) throw new CannotRun(`the reference sandbox did not answer ${probe.id} (${r.failure ?? ''})`)
      if (t.answer === undefined) {
        outcome.differences.push(diff('status', `no answer from the target (${t.failure ?? 'unknown'})`))
      } else {
        for (const c of compareAnswers(probe, r.answer, t.answer, check, paths, sentPath(t))) outcome.differences.push({ ...diff(c.aspect, c.detail), reference: c.reference, target: c.target })
      }
      outcome.state = outcome.differences.length > 0 ? 'different' : 'same'
    }

    const all = outcomes.flatMap((o) => o.differences)
    // the document's differences are declared as probe "spec" (aspect schema), matched by their text
    const found = options.targetSpec === undefined ? [] : diffSpecs(doc, await loadSpec(options.targetSpec))
    const specDiffs: Difference[] = found.map((d) => ({ probe: 'spec', operation: d.operation, aspect: 'schema', detail: `${d.operation} ${d.detail}` }))
    const unusedDeclarations = applyDeclared([...all, ...specDiffs], declared)
    found.forEach((d, i) => { if (specDiffs[i].declared !== undefined) d.declared = specDiffs[i].declared })
    const spec: ParityReport['spec'] = options.targetSpec === undefined
      ? undefined
      : { target: options.targetSpec, breaking: found.filter((d) => d.breaking), nonBreaking: found.filter((d) => !d.breaking) }
    const shown: ShownOutcome[] = outcomes.map((o) => ({
      id: o.probe.id,
      operation: o.probe.operation,
      kind: o.probe.kind,
      title: o.probe.title,
      state: o.state,
      skipped: o.skipped,
      failing: o.differences.some(counts),
      differences: o.differences.map((d) => ({ ...d, reference: redactor.value(d.reference), target: redactor.value(d.target) })),
      reference: o.reference === undefined ? undefined : show(o.reference, redactor),
      target: o.target === undefined ? undefined : show(o.target, redactor)
    }))
    // differences first: the failing probes, then the declared ones, then the rest, each in the table's order
    const rank = (o: ShownOutcome): number => o.failing ? 0 : o.differences.length > 0 ? 1 : 2
    shown.sort((a, b) => rank(a) - rank(b))
    const undeclared = all.filter(counts).length
    const report: ParityReport = {
      tool: 'banking-sandbox parity',
      started: started.toISOString(),
      ms: Date.now() - started.getTime(),
      target: { url: base, tokenUrl: targetSettings.tokenUrl },
      reference: { url: ref.url },
      readOnly: options.readOnly === true,
      summary: {
        probes: outcomes.length,
        same: outcomes.filter((o) => o.state === 'same').length,
        different: outcomes.filter((o) => o.state === 'different').length,
        skipped: outcomes.filter((o) => o.state === 'skipped').length,
        differences: all.length,
        undeclared,
        declared: all.length - undeclared
      },
      outcomes: shown,
      spec,
      unusedDeclarations,
      exchanges: [...reference.traffic.exchanges, ...target.traffic.exchanges].map((ex) => show(ex, redactor))
    }
    const files = options.out === undefined ? undefined : await writeReports(options.out, report)
    const breaking = spec?.breaking.filter(counts).length ?? 0
    return { exitCode: undeclared > 0 || breaking > 0 ? 1 : 0, report, files, targetMethods: apiMethods() }
  } catch (err) {
    return { exitCode: 2, problem: (err as Error).message.split('\n')[0], targetMethods: apiMethods() }
  } finally {
    await ref.stop()
  }
}
