/* The partner console: one Alpine.js component over the sandbox's control API (/__sandbox), signed in by a
 * session cookie (HttpOnly: this script never sees it). Calls that change state carry the session's CSRF
 * value in X-Console-Csrf. Endpoints of the fault issue (faults, magic values, clock, state controls) are
 * optional: a 404 shows an empty state instead of the panel.
 * The page runs Alpine's CSP build (no eval): its x-* expressions are property reads, method calls and
 * plain operators, and anything more (optional chaining, template strings, globals such as Date) is a
 * getter or method here. */
/* global Alpine, EventSource */

const MAX_ROWS = 300
const JSON_TOKEN = /("(?:\\.|[^"\\])*")(\s*:)?|\b(true|false|null)\b|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/g

function span (className, text) {
  const el = document.createElement('span')
  el.className = className
  el.textContent = text
  return el
}

/** JSON pretty-printed as text and spans marking keys, strings, numbers and literals for colour; other text as it is. */
function jsonNodes (text) {
  if (text === null) return []
  let pretty
  try {
    pretty = JSON.stringify(JSON.parse(text), null, 2)
  } catch {
    return [text]
  }
  const nodes = []
  let end = 0
  for (const m of pretty.matchAll(JSON_TOKEN)) {
    const [, str, colon, literal, num] = m
    nodes.push(pretty.slice(end, m.index))
    if (str !== undefined) nodes.push(...(colon !== undefined ? [span('k', str), colon] : [span('s', str)]))
    else if (literal !== undefined) nodes.push(span('l', literal))
    else nodes.push(span('n', num))
    end = m.index + m[0].length
  }
  nodes.push(pretty.slice(end))
  return nodes
}

document.addEventListener('alpine:init', () => {
  // x-json="text": the text as pretty JSON, built as DOM nodes (the CSP build has no x-html, and no HTML is parsed)
  Alpine.directive('json', (el, { expression }, { evaluateLater, effect }) => {
    const body = evaluateLater(expression)
    effect(() => body((text) => el.replaceChildren(...jsonNodes(text))))
  })

  Alpine.data('consoleApp', () => ({
    ready: false,
    me: null,
    login: { clientId: '', clientSecret: '', error: '', busy: false },
    tabs: [
      { id: 'overview', label: 'Overview' }, { id: 'requests', label: 'Requests' }, { id: 'snapshots', label: 'Snapshots' },
      { id: 'advice', label: 'Advice' }, { id: 'faults', label: 'Faults' }, { id: 'state', label: 'State' }, { id: 'clock', label: 'Clock' }
    ],
    tab: 'overview',
    toast: { text: '', kind: '' },
    busy: '',
    state: null,
    scenarios: [],
    resetTo: '',
    requests: [],
    journalTotal: 0,
    selected: null,
    filter: '',
    methodFilter: '',
    live: false,
    stream: null,
    snapshots: [],
    snapshotName: '',
    faults: null,
    magic: [],
    newFault: { method: '', path: '', fault: '', probability: 1 },
    control: { agentId: '', accountId: '', action: 'close', amount: '', customerId: '', kyc: 'true' },
    clockState: null,
    advice: null,
    readiness: null,
    clockAdvance: 'P30D',
    clockNow: '',

    // what the page shows of the session and the state, blank until they have loaded
    get partnerId () { return this.me?.partnerId },
    get partnerName () { return this.me?.name },
    get snapshotFile () { return `${this.me?.partnerId}-snapshot.json` },
    get scenario () { return this.state?.scenario },
    get seed () { return this.state?.seed },
    get agents () { return this.state?.agents ?? [] },
    get agentCount () { return this.state?.agents.length },
    get guarantees () { return this.state?.guarantees },
    get users () { return this.state?.users.join(', ') || 'none' },

    async start () {
      const res = await this.call('GET', '/console/session')
      if (res.ok) await this.enter(res.json)
      this.ready = true
    },

    async call (method, path, body, headers = {}) {
      const h = { ...headers }
      if (body !== undefined) h['content-type'] = 'application/json'
      if (method !== 'GET' && this.me !== null) h['x-console-csrf'] = this.me.csrfToken
      const res = await fetch(path, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin' })
      const text = await res.text()
      let json = null
      try { json = text === '' ? null : JSON.parse(text) } catch { json = null }
      if (res.status === 401 && this.me !== null && path.startsWith('/__sandbox')) this.signedOut('Your session ended: sign in again.')
      return { status: res.status, ok: res.ok, json }
    },

    /** Calls the API and says how it went; answers the JSON of a success, else null. */
    async act (method, path, body, done, headers) {
      const res = await this.call(method, path, body, headers)
      if (res.ok) {
        if (done) this.say(done)
        return res.json ?? {}
      }
      const detail = res.json?.errors?.length > 0 ? `: ${res.json.errors.map((e) => `${e.field} ${e.defaultMessage}`).join('; ')}` : ''
      this.say(`${res.json?.message ?? `Failed (${res.status})`}${detail}`, 'bad')
      return null
    },

    say (text, kind = 'good') {
      this.toast = { text, kind }
      clearTimeout(this.toastTimer)
      this.toastTimer = setTimeout(() => { this.toast = { text: '', kind: '' } }, kind === 'bad' ? 8000 : 3500)
    },

    async signIn () {
      this.login.busy = true
      this.login.error = ''
      const res = await this.call('POST', '/console/session', { clientId: this.login.clientId.trim(), clientSecret: this.login.clientSecret })
      this.login.busy = false
      if (!res.ok) {
        this.login.error = res.status === 401 ? 'Unknown client id or wrong client secret.' : (res.json?.message ?? `Sign-in failed (${res.status}).`)
        return
      }
      this.login.clientSecret = ''
      await this.enter(res.json)
    },

    async enter (me) {
      this.me = me
      await Promise.all([this.loadState(), this.loadRequests(), this.loadSnapshots(), this.loadOptional(), this.loadAdvice()])
      this.resetTo = this.state?.scenario ?? ''
      this.connect()
    },

    async signOut () {
      await this.call('DELETE', '/console/session')
      this.signedOut('')
    },

    signedOut (message) {
      this.stream?.close()
      this.stream = null
      this.live = false
      this.me = null
      this.requests = []
      this.selected = null
      this.login.error = message
    },

    async show (id) {
      this.tab = id
      if (id === 'overview') await Promise.all([this.loadState(), this.loadAdvice()])
      if (id === 'advice') await this.loadAdvice()
      if (id === 'snapshots') await this.loadSnapshots()
      if (['faults', 'state', 'clock'].includes(id)) await this.loadOptional()
    },

    async loadState () {
      const [state, scenarios] = await Promise.all([this.call('GET', '/__sandbox/state'), this.call('GET', '/__sandbox/scenarios')])
      if (state.ok) this.state = state.json
      if (scenarios.ok) this.scenarios = scenarios.json.scenarios
      if (this.control.agentId === '' && this.state?.agents.length > 0) this.control.agentId = this.state.agents[0].agentId
    },

    records () {
      return (this.state?.agents ?? []).reduce((n, a) => n + a.customers + a.accounts + a.beneficiaries + a.messages, 0).toLocaleString()
    },

    async reset () {
      this.busy = 'reset'
      const done = await this.act('POST', '/__sandbox/reset', { scenario: this.resetTo }, `Reset to ${this.resetTo}`)
      this.busy = ''
      if (done) this.state = done
    },

    async resetAgent (agentId) {
      if (await this.act('POST', `/__sandbox/agents/${agentId}/reset`, {}, `Agent ${agentId} reset`)) await this.loadState()
    },

    async newAgent () {
      this.busy = 'agent'
      const agent = await this.act('POST', '/__sandbox/agents', {})
      this.busy = ''
      if (agent) {
        this.say(`Fresh agent ${agent.agentId} created: use Agent-Id ${agent.agentId}`)
        await this.loadState()
      }
    },

    async deleteAgent (agentId) {
      if (!window.confirm(`Delete fresh agent ${agentId} and its data?`)) return
      if (await this.act('DELETE', `/__sandbox/agents/${agentId}`, undefined, `Agent ${agentId} deleted`)) await this.loadState()
    },

    // the journal
    async loadRequests () {
      const res = await this.call('GET', `/__sandbox/requests?limit=${MAX_ROWS}`)
      if (!res.ok) return
      this.requests = res.json.requests
      this.journalTotal = res.json.total
    },

    connect () {
      this.stream?.close()
      const stream = new EventSource('/__sandbox/requests/stream')
      stream.onopen = () => { this.live = true }
      stream.onerror = () => { this.live = false }
      stream.addEventListener('request', (event) => {
        const entry = JSON.parse(event.data)
        this.requests = [entry, ...this.requests].slice(0, MAX_ROWS)
        this.journalTotal += 1
      })
      this.stream = stream
    },

    shown () {
      const f = this.filter.trim().toLowerCase()
      return this.requests.filter((r) => (this.methodFilter === '' || r.method === this.methodFilter) &&
        (f === '' || r.url.toLowerCase().includes(f) || String(r.status) === f || r.requestId.toLowerCase().includes(f) || r.traceId === f))
    },

    async open (id) {
      const res = await this.call('GET', `/__sandbox/requests/${encodeURIComponent(id)}`)
      if (res.ok) this.selected = res.json
      else this.say('That request is no longer in the journal', 'bad')
    },

    async clearJournal () {
      if (await this.act('DELETE', '/__sandbox/requests', undefined, 'Journal emptied')) {
        this.requests = []
        this.selected = null
        this.journalTotal = 0
      }
    },

    curlHint () {
      const base = window.location.origin
      return `TOKEN=$(curl -s -u ${this.me?.partnerId ?? 'client'}:<secret> -d grant_type=client_credentials \\\n  ${base}/auth/realms/sandbox/protocol/openid-connect/token | sed -E 's/.*"access_token":"([^"]+)".*/\\1/')\n` +
        `curl -H "Authorization: Bearer $TOKEN" -H "Agent-Id: ${this.state?.agents[0]?.agentId ?? '1001'}" ${base}/api/banks`
    },

    isOpen (entry) {
      return this.selected?.id === entry.id
    },

    headersOf (part) {
      return Object.entries(this.selected[part].headers)
    },

    statusClass (status) {
      return status === 0 ? 's0' : `s${String(status)[0]}`
    },

    clock (time) {
      return new Date(time).toLocaleTimeString([], { hour12: false })
    },

    dateTime (time) {
      return new Date(time).toLocaleString()
    },

    roundMs (ms) {
      return Math.round(ms)
    },

    size (bytes) {
      return bytes < 1024 ? `${bytes} B` : bytes < 1048576 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1048576).toFixed(1)} MB`
    },

    // snapshots
    async loadSnapshots () {
      const res = await this.call('GET', '/__sandbox/snapshots')
      if (res.ok) this.snapshots = res.json.snapshots
    },

    async saveSnapshot () {
      const name = this.snapshotName.trim()
      if (await this.act('POST', '/__sandbox/snapshots', { name }, `Saved as ${name}`)) {
        this.snapshotName = ''
        await this.loadSnapshots()
      }
    },

    async restoreSnapshot (name) {
      const state = await this.act('POST', '/__sandbox/reset', { snapshot: name }, `Back to snapshot ${name}`)
      if (state) this.state = state
    },

    async deleteSnapshot (name) {
      if (!window.confirm(`Delete snapshot ${name}?`)) return
      if (await this.act('DELETE', `/__sandbox/snapshots/${encodeURIComponent(name)}`, undefined, `Snapshot ${name} deleted`)) await this.loadSnapshots()
    },

    async uploadSnapshot (event) {
      const file = event.target.files[0]
      event.target.value = ''
      if (file === undefined) return
      let doc
      try {
        doc = JSON.parse(await file.text())
      } catch {
        this.say(`${file.name} is not JSON`, 'bad')
        return
      }
      const state = await this.act('PUT', '/__sandbox/snapshot', doc, `Restored from ${file.name}`)
      if (state) this.state = state
    },

    // the advisor (issue 29): findings about the partner's traffic and the go-live readiness checklist
    async loadAdvice () {
      const [advice, readiness] = await Promise.all([this.call('GET', '/__sandbox/advice'), this.call('GET', '/__sandbox/readiness')])
      this.advice = advice.ok ? advice.json : null
      this.readiness = readiness.ok ? readiness.json : null
    },

    async clearAdvice () {
      if (await this.act('DELETE', '/__sandbox/advice', undefined, 'Advice and readiness cleared')) await this.loadAdvice()
    },

    get findings () { return this.advice?.findings ?? [] },
    get judged () { return this.advice?.requests ?? 0 },
    get cases () { return this.readiness?.cases ?? [] },

    readinessSummary () {
      const r = this.readiness
      if (r === null) return 'Not available on this sandbox'
      if (r.ready) return 'Ready: every case passed'
      return `${r.passed} of ${r.cases.length} passed · ${r.failed} failed · ${r.notTried} not tried`
    },

    findingsSummary () {
      const n = this.findings.length
      return n === 0 ? "No findings about your client's traffic" : `${n} finding${n === 1 ? '' : 's'} about your client's traffic`
    },

    verdictLabel (status) {
      return status === 'not-tried' ? 'not tried' : status
    },

    verdictDetail (c) {
      if (c.status === 'passed') return `Proved by ${c.requestIds.join(', ')}`
      if (c.status === 'failed') return c.reason
      return c.howTo
    },

    findingSeen (f) {
      return `${f.count}× · last ${this.dateTime(f.lastSeen)}`
    },

    async openRequest (id) {
      await this.show('requests')
      await this.open(id)
    },

    // fault injection, magic values, state controls and clock: present only on sandboxes that have them
    async loadOptional () {
      const [faults, magic, clock] = await Promise.all([this.call('GET', '/__sandbox/faults'), this.call('GET', '/__sandbox/magic'), this.call('GET', '/__sandbox/clock')])
      this.faults = faults.ok ? faults.json.faults : null
      this.magic = magic.ok ? magic.json.values : []
      this.clockState = clock.ok ? clock.json : null
    },

    describeMatch (match) {
      const parts = [match.method, match.path ?? match.route, match.agentId === undefined ? undefined : `agent ${match.agentId}`].filter((p) => p !== undefined)
      return parts.length === 0 ? 'every request' : parts.join(' ')
    },

    counts (rule) {
      return `${rule.matched} / ${rule.fired}${rule.times ? ' of ' + rule.times : ''}`
    },

    async addFault () {
      const match = {}
      if (this.newFault.method !== '') match.method = this.newFault.method
      if (this.newFault.path.trim() !== '') match.path = this.newFault.path.trim()
      if (await this.act('POST', '/__sandbox/faults', { match, fault: this.newFault.fault.trim(), probability: this.newFault.probability }, 'Fault rule added')) {
        this.newFault.fault = ''
        await this.loadOptional()
      }
    },

    async deleteFault (id) {
      if (await this.act('DELETE', `/__sandbox/faults/${encodeURIComponent(id)}`, undefined, 'Fault rule removed')) await this.loadOptional()
    },

    async clearFaults () {
      if (await this.act('DELETE', '/__sandbox/faults', undefined, 'Every fault rule removed')) await this.loadOptional()
    },

    async accountAction () {
      const { agentId, accountId, action, amount } = this.control
      const path = `/__sandbox/accounts/${encodeURIComponent(accountId)}`
      const headers = { 'agent-id': agentId }
      const body = { amount: Number(amount) }
      const done = `Account ${accountId}: ${action} done`
      if (action === 'close' || action === 'reopen') await this.act('POST', `${path}/${action}`, {}, done, headers)
      else if (action === 'balance') await this.act('PUT', `${path}/balance`, body, done, headers)
      else await this.act('POST', `${path}/${action}`, body, done, headers)
    },

    async kycAction () {
      const { agentId, customerId, kyc } = this.control
      await this.act('PUT', `/__sandbox/customers/${encodeURIComponent(customerId)}/kyc`, { kycStatus: kyc === 'true' }, `Customer ${customerId}: KYC set`, { 'agent-id': agentId })
    },

    clockOf (field) {
      return this.clockState?.[field]
    },

    async setClockTo () {
      const now = new Date(this.clockNow)
      if (Number.isNaN(now.getTime())) this.say('Choose a date and time to set the clock to', 'bad')
      else await this.setClock({ now: now.toISOString() })
    },

    async setClock (body) {
      const res = await this.act('PUT', '/__sandbox/clock', body, 'Clock set')
      if (res) this.clockState = res
    },

    async resetClock () {
      if (await this.act('DELETE', '/__sandbox/clock', undefined, 'Back to real time')) await this.loadOptional()
    }
  }))
})
