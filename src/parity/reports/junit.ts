import type { ParityReport } from './model.js'

/* JUnit XML for CI: one test suite per operation, one test case per probe; a failure per undeclared difference. */

export function xml (s: string): string {
  return s.replace(/[<>&"']/g, (c) => `&${({ '<': 'lt', '>': 'gt', '&': 'amp', '"': 'quot', "'": 'apos' } as Record<string, string>)[c]};`)
    // characters XML 1.0 cannot carry at all
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '')
}

export function junit (report: ParityReport): string {
  const byOperation = new Map<string, ParityReport['outcomes']>()
  for (const o of report.outcomes) byOperation.set(o.operation, [...(byOperation.get(o.operation) ?? []), o])
  const suites = [...byOperation].map(([operation, outcomes]) => {
    const failures = outcomes.filter((o) => o.failing).length
    const skipped = outcomes.filter((o) => o.state === 'skipped').length
    const cases = outcomes.map((o) => {
      const time = (((o.reference?.ms ?? 0) + (o.target?.ms ?? 0)) / 1000).toFixed(3)
      const head = `    <testcase classname="${xml(operation)}" name="${xml(`${o.id}: ${o.title}`)}" time="${time}"`
      const failing = o.differences.filter((d) => d.declared === undefined || d.declared.expired)
      const declared = o.differences.filter((d) => d.declared !== undefined && !d.declared.expired)
      const body = [
        ...(o.state === 'skipped' ? [`      <skipped message="${xml(o.skipped ?? 'skipped')}"/>`] : []),
        ...failing.map((d) => `      <failure type="${d.aspect}" message="${xml(d.detail)}">${xml(d.declared?.expired === true ? `declared until ${d.declared.expires} (expired): ${d.declared.reason}` : d.detail)}</failure>`),
        ...(declared.length > 0 ? [`      <system-out>${xml(declared.map((d) => `declared until ${d.declared?.expires ?? ''}: ${d.detail} (${d.declared?.reason ?? ''})`).join('\n'))}</system-out>`] : [])
      ]
      return body.length === 0 ? `${head}/>` : `${head}>\n${body.join('\n')}\n    </testcase>`
    })
    return `  <testsuite name="${xml(operation)}" tests="${outcomes.length}" failures="${failures}" errors="0" skipped="${skipped}">\n${cases.join('\n')}\n  </testsuite>`
  })
  const s = report.summary
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="banking-sandbox parity" tests="${s.probes}" failures="${report.outcomes.filter((o) => o.failing).length}" errors="0" skipped="${s.skipped}" time="${(report.ms / 1000).toFixed(3)}">\n${suites.join('\n')}\n</testsuites>\n`
}
