/* The operator console: one Alpine.js component over the operator endpoints (/__sandbox/admin), signed in by an
 * operator session cookie (HttpOnly: this script never sees it, nor the operator token once sent). It reads only:
 * the overview of partners (sorted, filtered and paged by the sandbox, so that thousands stay quick) and one
 * partner's readiness checklist and findings. As the partner console, it runs Alpine's CSP build (no eval): its
 * x-* expressions are property reads, method calls and plain operators. */
/* global Alpine */

const PAGE_SIZE = 50
const REFRESH_MS = 30_000
const LINK = /^#readiness=(.+)$/

document.addEventListener('alpine:init', () => {
  Alpine.data('operatorApp', () => ({
    ready: false,
    signedIn: false,
    csrf: '',
    login: { token: '', error: '', busy: false },
    toast: { text: '', kind: '' },
    loading: false,
    overview: null,
    filter: 'all',
    search: '',
    sort: 'lastRequestAt',
    descending: true,
    page: 0,
    detail: null,
    timer: null,
    tiles: [
      { id: 'all', label: 'Partners', hint: 'scenario and registered' },
      { id: 'active', label: 'Active', hint: 'a request in the last 24 h' },
      { id: 'attention', label: 'Need attention', hint: 'a 5xx, a finding or a failed case' },
      { id: 'ready', label: 'Ready for go-live', hint: 'every readiness case passed' }
    ],
    columns: [
      { sort: 'clientId', label: 'Client id' }, { sort: 'name', label: 'Name' }, { sort: 'registered', label: 'Kind' },
      { sort: 'lastRequestAt', label: 'Last request' }, { sort: 'requests24h', label: 'Requests 24 h', num: true },
      { sort: 'serverErrors24h', label: '5xx 24 h', num: true }, { sort: 'findings', label: 'Findings' }, { sort: 'readiness', label: 'Readiness' }
    ],

    get rows () { return this.overview?.partners ?? [] },
    get observing () { return this.overview?.observing ?? true },

    async start () {
      const res = await this.call('GET', '/console/operator/session')
      if (res.ok) await this.enter(res.json)
      this.ready = true
      // a link to a partner's readiness, followed in the open page
      window.addEventListener('hashchange', () => this.follow())
    },

    async follow () {
      const linked = LINK.exec(window.location.hash)
      if (this.signedIn && linked !== null) await this.openPartner(decodeURIComponent(linked[1]))
    },

    async call (method, path, body) {
      const headers = {}
      if (body !== undefined) headers['content-type'] = 'application/json'
      if (method !== 'GET' && this.csrf !== '') headers['x-console-csrf'] = this.csrf
      const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin' })
      const text = await res.text()
      let json = null
      try { json = text === '' ? null : JSON.parse(text) } catch { json = null }
      if (res.status === 401 && this.signedIn && path.startsWith('/__sandbox')) this.signedOut('Your session ended: sign in again.')
      return { status: res.status, ok: res.ok, json }
    },

    say (text, kind = 'good') {
      this.toast = { text, kind }
      clearTimeout(this.toastTimer)
      this.toastTimer = setTimeout(() => { this.toast = { text: '', kind: '' } }, kind === 'bad' ? 8000 : 3500)
    },

    async signIn () {
      this.login.busy = true
      this.login.error = ''
      const res = await this.call('POST', '/console/operator/session', { token: this.login.token })
      this.login.busy = false
      this.login.token = ''
      if (!res.ok) {
        this.login.error = res.status === 401 ? 'Wrong operator token.' : (res.json?.message ?? `Sign-in failed (${res.status}).`)
        return
      }
      await this.enter(res.json)
    },

    async enter (session) {
      this.csrf = session.csrfToken
      this.signedIn = true
      await this.load()
      await this.follow()
      this.timer = setInterval(() => { if (document.visibilityState === 'visible') this.load() }, REFRESH_MS)
    },

    async signOut () {
      await this.call('DELETE', '/console/operator/session')
      this.signedOut('')
    },

    signedOut (message) {
      clearInterval(this.timer)
      this.signedIn = false
      this.csrf = ''
      this.overview = null
      this.detail = null
      this.login.error = message
    },

    // the list: the sandbox filters, sorts and pages it
    query () {
      const q = new URLSearchParams({ page: String(this.page), size: String(PAGE_SIZE), sort: `${this.sort},${this.descending ? 'desc' : 'asc'}` })
      if (this.filter !== 'all') q.set(this.filter, 'true')
      if (this.search.trim() !== '') q.set('q', this.search.trim())
      return q.toString()
    },

    async load () {
      this.loading = true
      const res = await this.call('GET', `/__sandbox/admin/overview?${this.query()}`)
      this.loading = false
      if (res.ok) this.overview = res.json
      else if (res.status !== 401) this.say(res.json?.message ?? `The overview failed (${res.status})`, 'bad')
    },

    async find () {
      this.page = 0
      await this.load()
    },

    async only (filter) {
      this.filter = filter
      await this.find()
    },

    async clearFilters () {
      this.search = ''
      await this.only('all')
    },

    async sortBy (property) {
      // a new column starts with what an operator looks for first: the most (or latest) on top; names A to Z
      if (this.sort === property) this.descending = !this.descending
      else this.descending = !['clientId', 'name'].includes(property)
      this.sort = property
      await this.find()
    },

    async go (page) {
      this.page = page
      await this.load()
    },

    ariaSort (property) {
      return this.sort !== property ? 'none' : this.descending ? 'descending' : 'ascending'
    },

    arrow (property) {
      return this.sort !== property ? '' : this.descending ? ' ↓' : ' ↑'
    },

    total (tile) {
      const totals = this.overview?.totals
      if (!totals) return '–'
      return (tile === 'all' ? totals.partners : totals[tile]).toLocaleString()
    },

    tileClass (tile) {
      return { selected: this.filter === tile, [tile]: true }
    },

    pages () {
      return this.overview?.page.totalPages ?? 0
    },

    showing () {
      const p = this.overview?.page
      if (!p || p.totalElements === 0) return ''
      const from = p.page * p.pageSize + 1
      return `${from.toLocaleString()}–${(from + p.numberOfElements - 1).toLocaleString()} of ${p.totalElements.toLocaleString()}`
    },

    pageText () {
      return `Page ${this.page + 1} of ${this.pages()}`
    },

    windowText () {
      const w = this.overview?.window
      return w ? `Last 24 h: since ${new Date(w.from).toLocaleString([], { hour12: false, dateStyle: 'short', timeStyle: 'short' })} · updated ${new Date(w.to).toLocaleTimeString([], { hour12: false })}` : ''
    },

    // a row
    statusOf (p) {
      return p.ready ? 'ready' : p.attention ? 'attention' : p.active ? 'active' : 'idle'
    },

    statusLabel (p) {
      return { ready: 'ready', attention: 'needs attention', active: 'active', idle: 'idle' }[this.statusOf(p)]
    },

    ago (time) {
      if (time === null) return 'never'
      const seconds = Math.round((Date.now() - Date.parse(time)) / 1000)
      if (seconds < 60) return 'just now'
      const rtf = new Intl.RelativeTimeFormat('en', { numeric: 'auto' })
      if (seconds < 3600) return rtf.format(-Math.floor(seconds / 60), 'minute')
      if (seconds < 86400) return rtf.format(-Math.floor(seconds / 3600), 'hour')
      return rtf.format(-Math.floor(seconds / 86400), 'day')
    },

    exactTime (time) {
      return time === null ? 'No request since the sandbox has had this partner' : new Date(time).toLocaleString()
    },

    count (n) {
      return n.toLocaleString()
    },

    readinessShort (p) {
      const r = p.readiness
      return `${r.passed}/${r.passed + r.failed + r.notTried}`
    },

    readinessText (p) {
      const r = p.readiness
      return `${r.passed} passed · ${r.failed} failed · ${r.notTried} not tried`
    },

    barWidth (p, part) {
      const r = p.readiness
      return { width: `${(100 * r[part]) / (r.passed + r.failed + r.notTried)}%` }
    },

    readinessLink (p) {
      return `#readiness=${encodeURIComponent(p.clientId)}`
    },

    // one partner: its readiness checklist and findings, as the partner reads them
    async openPartner (clientId) {
      const path = `/__sandbox/admin/partners/${encodeURIComponent(clientId)}`
      const [readiness, advice] = await Promise.all([this.call('GET', `${path}/readiness`), this.call('GET', `${path}/advice`)])
      if (!readiness.ok || !advice.ok) {
        this.say(readiness.json?.message ?? `No partner ${clientId}`, 'bad')
        return
      }
      const row = this.rows.find((p) => p.clientId === clientId)
      this.detail = { clientId, name: row?.name ?? '', readiness: readiness.json, advice: advice.json }
      window.history.replaceState(null, '', `#readiness=${encodeURIComponent(clientId)}`)
      await this.$nextTick()
      document.getElementById('partner-detail').scrollIntoView({ block: 'start' })
    },

    closePartner () {
      this.detail = null
      window.history.replaceState(null, '', window.location.pathname)
    },

    junitLink () {
      return `/__sandbox/admin/partners/${encodeURIComponent(this.detail?.clientId ?? '')}/readiness?format=junit`
    },

    detailSummary () {
      const r = this.detail?.readiness
      if (!r) return ''
      if (r.ready) return 'Ready: every case passed'
      return `${r.passed} of ${r.cases.length} passed · ${r.failed} failed · ${r.notTried} not tried`
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
      return `${f.count}× · last ${new Date(f.lastSeen).toLocaleString()}`
    }
  }))
})
