import type { SpecDifference } from '../spec-diff.js'
import type { ParityReport, ShownExchange, ShownOutcome } from './model.js'

/*
 * One HTML page that works offline: inline CSS, no script, no external address (its Content-Security-Policy
 * forbids any request). Differences first, each probe's two answers side by side; then the OpenAPI document's
 * differences; then the probes that agreed, folded.
 */

function esc (s: string): string {
  return s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

const CSS = `
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d2433;background:#f6f7f9}
header{background:#1d2433;color:#fff;padding:16px 24px}header h1{margin:0 0 4px;font-size:20px}
main{padding:16px 24px}.summary{display:flex;gap:12px;flex-wrap:wrap;margin:12px 0}
.tile{background:#fff;border:1px solid #d9dde5;border-radius:6px;padding:8px 14px}.tile b{font-size:20px;display:block}
.bad b{color:#b3261e}.ok b{color:#1b7f3b}.warn b{color:#9a6700}
section{margin:20px 0}h2{font-size:17px;border-bottom:1px solid #d9dde5;padding-bottom:4px}
details{background:#fff;border:1px solid #d9dde5;border-radius:6px;margin:8px 0}
summary{cursor:pointer;padding:8px 12px}summary code{font-weight:600}
.tag{display:inline-block;font-size:12px;border-radius:4px;padding:0 6px;margin-right:6px;background:#e8eaf0}
.tag.fail{background:#fbe1df;color:#8c1d18}.tag.declared{background:#fff3c4;color:#6b4e00}.tag.same{background:#dcf3e3;color:#14602c}
ul.diffs{margin:4px 12px 8px 28px;padding:0}ul.diffs li{margin:2px 0}
.sides{display:grid;grid-template-columns:1fr 1fr;gap:8px;padding:0 12px 12px}
.side h3{font-size:13px;margin:6px 0}pre{background:#f1f3f7;border-radius:4px;padding:8px;overflow:auto;max-height:320px;margin:0;font-size:12px;white-space:pre-wrap;word-break:break-all}
table{border-collapse:collapse;background:#fff}td,th{border:1px solid #d9dde5;padding:4px 8px;text-align:left;vertical-align:top}
`

function pretty (body: string | undefined): string {
  if (body === undefined || body === '') return '(no body)'
  try { return JSON.stringify(JSON.parse(body), null, 2) } catch { return body }
}

function side (name: string, ex: ShownExchange | undefined): string {
  if (ex === undefined) return `<div class="side"><h3>${name}</h3><pre>(not sent)</pre></div>`
  const request = `${ex.method} ${ex.url}\n${Object.entries(ex.requestHeaders).map(([k, v]) => `${k}: ${v}`).join('\n')}${ex.requestBody === undefined ? '' : `\n\n${pretty(ex.requestBody)}`}`
  const answer = ex.failure !== undefined
    ? `no answer: ${ex.failure}`
    : `${ex.status ?? ''} ${ex.statusText ?? ''}\n${Object.entries(ex.headers ?? {}).map(([k, v]) => `${k}: ${v}`).join('\n')}\n\n${pretty(ex.body)}`
  return `<div class="side"><h3>${name}</h3><pre>${esc(request)}</pre><h3>answer</h3><pre>${esc(answer)}</pre></div>`
}

function declaredNote (declared: SpecDifference['declared']): string {
  return declared === undefined ? '' : ` <em>(declared until ${esc(declared.expires)}${declared.expired ? ', expired' : ''}: ${esc(declared.reason)})</em>`
}

function outcome (o: ShownOutcome, open: boolean): string {
  const tag = o.failing ? '<span class="tag fail">different</span>' : o.differences.length > 0 ? '<span class="tag declared">declared</span>' : o.state === 'skipped' ? '<span class="tag">skipped</span>' : '<span class="tag same">same</span>'
  const diffs = o.differences.map((d) => `<li><span class="tag">${esc(d.aspect)}</span>${esc(d.detail)}${declaredNote(d.declared)}</li>`).join('')
  return `<details${open ? ' open' : ''} id="${esc(o.id)}"><summary>${tag}<code>${esc(o.id)}</code> · ${esc(o.operation)} · ${esc(o.title)}${o.skipped === undefined ? '' : ` · ${esc(o.skipped)}`}</summary>` +
    (diffs === '' ? '' : `<ul class="diffs">${diffs}</ul>`) +
    `<div class="sides">${side('reference (sandbox)', o.reference)}${side('target', o.target)}</div></details>`
}

export function html (report: ParityReport): string {
  const s = report.summary
  const failing = report.outcomes.filter((o) => o.failing)
  const declared = report.outcomes.filter((o) => !o.failing && o.differences.length > 0)
  const rest = report.outcomes.filter((o) => o.differences.length === 0)
  const spec = report.spec === undefined
    ? ''
    : `<section><h2>OpenAPI document (${esc(report.spec.target)})</h2>${[['Breaking', report.spec.breaking], ['Not breaking', report.spec.nonBreaking]].map(([title, list]) =>
      `<h3>${title as string} (${(list as unknown[]).length})</h3><table><tr><th>operation</th><th>difference</th></tr>${(list as SpecDifference[]).map((d) => `<tr><td>${esc(d.operation)}</td><td>${esc(d.detail)}${declaredNote(d.declared)}</td></tr>`).join('')}</table>`).join('')}</section>`
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Parity: ${esc(report.target.url)}</title><style>${CSS}</style></head>
<body><header><h1>Parity of ${esc(report.target.url)} with the sandbox</h1>
<div>${esc(report.started)} · ${(report.ms / 1000).toFixed(1)} s · reference ${esc(report.reference.url)}${report.readOnly ? ' · read-only' : ''}</div></header>
<main><div class="summary">
<div class="tile ${s.undeclared > 0 ? 'bad' : 'ok'}"><b>${s.undeclared}</b>undeclared differences</div>
<div class="tile warn"><b>${s.declared}</b>declared</div>
<div class="tile"><b>${s.probes}</b>probes</div>
<div class="tile ok"><b>${s.same}</b>same</div>
<div class="tile ${s.different > 0 ? 'bad' : 'ok'}"><b>${s.different}</b>different</div>
<div class="tile"><b>${s.skipped}</b>skipped</div>
${report.spec === undefined ? '' : `<div class="tile ${report.spec.breaking.length > 0 ? 'bad' : 'ok'}"><b>${report.spec.breaking.length}</b>breaking in the document</div>`}
</div>
<section><h2>Differences (${failing.length})</h2>${failing.map((o) => outcome(o, true)).join('') || '<p>None.</p>'}</section>
${declared.length > 0 ? `<section><h2>Declared divergences (${declared.length})</h2>${declared.map((o) => outcome(o, false)).join('')}</section>` : ''}
${spec}
${report.unusedDeclarations.length > 0 ? `<section><h2>Declarations nothing matched</h2><ul>${report.unusedDeclarations.map((d) => `<li><code>${esc(d.probe)}</code> ${esc(d.reason)} (until ${esc(d.expires)})</li>`).join('')}</ul></section>` : ''}
<section><h2>Probes that agreed or were skipped (${rest.length})</h2>${rest.map((o) => outcome(o, false)).join('')}</section>
</main></body></html>
`
}
