import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { parse } from 'yaml'
import { MANIFEST, RULE_FILES, prometheusRule } from '../../scripts/prometheus-rule.js'
import { ROOT } from '../built.js'
import { imageManagementPort } from '../deploy-files.js'
import { prometheusSkip, promtool } from './scrape.js'

/*
 * deploy/prometheus/ (recording rules, alerts and their promtool unit tests), the Prometheus of the Compose setup,
 * the PrometheusRule made from the rules, and the Grafana dashboard's structure. What they return against a real
 * Prometheus is test/observability/prometheus.test.ts.
 */

const PROMETHEUS = join(ROOT, 'deploy', 'prometheus')
const skip = prometheusSkip()
const DOC = readFileSync(join(ROOT, 'docs', 'observability.md'), 'utf8')

interface Rule { record?: string, alert?: string, expr: string, labels?: Record<string, string>, annotations?: Record<string, string> }
const rules = RULE_FILES.flatMap((f) => (parse(readFileSync(f, 'utf8')) as { groups: Array<{ rules: Rule[] }> }).groups.flatMap((g) => g.rules))
const alerts = rules.filter((r) => r.alert !== undefined)

/** GitHub's anchor of a heading: lower case, spaces to dashes, punctuation gone. */
const anchor = (heading: string): string => heading.trim().toLowerCase().replace(/[^\w\- ]/g, '').replace(/ /g, '-')
const anchors = new Set([...DOC.matchAll(/^#+ (.+)$/gm)].map((m) => anchor(m[1])))

t.test('promtool accepts the rules and the Compose Prometheus configuration', { skip }, async (t) => {
  const checked = await promtool(['check', 'rules', ...RULE_FILES])
  t.equal(checked.code, 0, checked.output)
  t.match(checked.output, `SUCCESS: ${rules.length - alerts.length} rules found`)
  const config = await promtool(['check', 'config', '--syntax-only', join(ROOT, 'deploy', 'compose', 'prometheus.yml')])
  t.equal(config.code, 0, config.output)
})

t.test('promtool test rules: every rule file\'s unit tests pass', { skip }, async (t) => {
  const tests = readdirSync(join(PROMETHEUS, 'tests')).filter((f) => f.endsWith('.yaml')).map((f) => join(PROMETHEUS, 'tests', f))
  t.ok(tests.length >= 2, `${tests.length} test files`)
  const run = await promtool(['test', 'rules', ...tests])
  t.equal(run.code, 0, run.output)
  // every rule is exercised by a unit test
  const text = tests.map((f) => readFileSync(f, 'utf8')).join('\n')
  for (const r of rules) {
    const name = r.record ?? r.alert!
    t.ok(text.includes(r.record !== undefined ? `expr: ${name}\n` : `alertname: ${name}\n`), `${name} has a unit test`)
  }
})

t.test('every alert has a severity, a summary, a description and a runbook line in docs/observability.md', async (t) => {
  t.ok(alerts.length >= 9, `${alerts.length} alerts`)
  for (const a of alerts) {
    t.ok(['critical', 'warning'].includes(a.labels?.severity ?? ''), `${a.alert!}: severity`)
    t.ok((a.annotations?.summary ?? '') !== '' && (a.annotations?.description ?? '') !== '', `${a.alert!}: summary and description`)
    t.equal(a.annotations?.runbook_url, `docs/observability.md#${a.alert!.toLowerCase()}`, `${a.alert!}: runbook_url names its section`)
    t.ok(anchors.has(a.alert!.toLowerCase()), `docs/observability.md has a section ${a.alert!}`)
  }
  for (const r of rules.filter((r) => r.record !== undefined)) t.ok(DOC.includes(`\`${r.record!}\``), `docs/observability.md describes ${r.record!}`)
})

t.test('the PrometheusRule of deploy/kubernetes/monitoring/ holds the same groups (scripts/prometheus-rule.ts)', async (t) => {
  t.equal(readFileSync(MANIFEST, 'utf8'), prometheusRule(), 'up to date: run npx tsx scripts/prometheus-rule.ts')
})

t.test('Compose: Prometheus scrapes every replica\'s management port and loads every rule file', async (t) => {
  const compose = parse(readFileSync(join(ROOT, 'deploy', 'compose', 'compose.yaml'), 'utf8')) as { services: Record<string, any> }
  const config = parse(readFileSync(join(ROOT, 'deploy', 'compose', 'prometheus.yml'), 'utf8')) as any
  const replicas = Object.keys(compose.services).filter((name) => /^sandbox-\d$/.test(name))
  const job = config.scrape_configs.find((j: any) => j.job_name === 'banking-agent-sandbox')
  t.ok(job !== undefined, 'the job the alert on `up` names')
  const port = imageManagementPort()
  t.same(job.static_configs.flatMap((s: any) => s.targets), replicas.map((r) => `${r}:${port}`), 'every replica, on the image\'s management port')
  for (const r of replicas) t.equal(compose.services[r].environment.SANDBOX_MANAGEMENT_PORT, String(port), `which ${r} is given too`)
  const mounts: string[] = compose.services.prometheus.volumes
  for (const file of ['recording-rules.yaml', 'alerts.yaml']) {
    t.ok(mounts.includes(`../prometheus/${file}:/etc/prometheus/rules/${file}:ro`), `${file} mounted where rule_files looks`)
  }
  t.same(config.rule_files, ['/etc/prometheus/rules/*.yaml'])
  t.ok(compose.services.prometheus.ports.every((p: string) => p.startsWith('127.0.0.1:')), 'its UI on this machine only')
})

// Grafana's variable of the data source, as the dashboard writes it
const DATASOURCE = '$' + '{datasource}'

interface Panel { id: number, type: string, title: string, gridPos: { x: number, y: number, w: number, h: number }, datasource?: { type: string, uid: string }, targets?: Array<{ refId: string, expr: string, datasource: { uid: string } }> }

t.test('the Grafana dashboard: a datasource variable, job and replica variables, and panels for each part', async (t) => {
  const d = JSON.parse(readFileSync(join(ROOT, 'deploy', 'grafana', 'banking-sandbox.json'), 'utf8')) as { uid: string, title: string, schemaVersion: number, panels: Panel[], templating: { list: Array<{ name: string, type: string, query: unknown }> } }
  t.equal(d.uid, 'banking-sandbox')
  t.ok(d.title !== '' && d.schemaVersion >= 36, 'a title and a current schema version')
  const vars = new Map(d.templating.list.map((v) => [v.name, v]))
  t.same([vars.get('datasource')?.type, vars.get('datasource')?.query], ['datasource', 'prometheus'], 'the Prometheus to use is chosen on import')
  t.equal(vars.get('job')?.type, 'query', 'a job variable')
  t.equal(vars.get('instance')?.type, 'query', 'a replica variable')
  const ids = d.panels.map((p) => p.id)
  t.equal(new Set(ids).size, ids.length, 'panel ids are unique')
  const panels = d.panels.filter((p) => p.type !== 'row')
  for (const p of panels) {
    t.ok(p.gridPos.x >= 0 && p.gridPos.x + p.gridPos.w <= 24 && p.gridPos.h > 0, `"${p.title}": inside the 24 columns`)
    t.equal(p.datasource?.uid, DATASOURCE, `"${p.title}": the chosen data source`)
    t.ok((p.targets ?? []).length > 0, `"${p.title}": queries`)
    t.equal(new Set(p.targets!.map((x) => x.refId)).size, p.targets!.length, `"${p.title}": distinct refIds`)
    for (const target of p.targets!) {
      t.equal(target.datasource.uid, DATASOURCE)
      t.ok(target.expr.includes('$job'), `"${p.title}": ${target.expr} follows the job variable`)
    }
  }
  const exprs = panels.flatMap((p) => p.targets!.map((x) => x.expr)).join('\n')
  for (const [what, needle] of [
    ['requests by API', 'sum by (api)'], ['errors, not injected against injected', 'sum by (injected)'], ['a latency heatmap', '_bucket'],
    ['tokens by grant', 'sum by (grant_type)'], ['faults by source', 'sum by (source)'], ['active partners', 'sandbox_partners_active'],
    ['rate limits', 'sandbox_rate_limited_total'], ['Redis', 'sandbox_redis_up'], ['replicas', 'sandbox_ready'],
    ['the availability SLO', 'sandbox:bank_api_errors:ratio_rate5m'], ['the latency SLO', 'sandbox:bank_api_latency_seconds:p99_rate5m']
  ]) t.ok(exprs.includes(needle), `a panel of ${what}`)
  t.ok(panels.some((p) => p.type === 'heatmap'), 'the latency heatmap is a heatmap')
})
