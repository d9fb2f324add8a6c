// The bank is South African: dates and the zone-less timestamps of the samples are in South African
// Standard Time (UTC+02:00, no daylight saving), so "today" turns at midnight in Johannesburg.
const SAST_OFFSET_MS = 2 * 60 * 60 * 1000
const DAY_MS = 24 * 60 * 60 * 1000

/**
 * A partner's clock (issue 11): real time shifted by an offset, or frozen at an instant. Every date the
 * API writes for the partner's data follows it; tokens and other partners stay on real time.
 */
export function clockNow (clock: { offsetMs: number, frozenAt?: number } | null | undefined, real = Date.now()): number {
  if (clock === null || clock === undefined) return real
  return clock.frozenAt ?? real + clock.offsetMs
}

// Formatting a Date is a visible cost when every create asks for it: keep the last answer.
let day = -1
let dayText = ''
let millis = -1
let millisText = ''

/** YYYY-MM-DD in South Africa. */
export function todaySast (now = Date.now()): string {
  const d = Math.floor((now + SAST_OFFSET_MS) / DAY_MS)
  if (d !== day) {
    day = d
    dayText = new Date(d * DAY_MS).toISOString().slice(0, 10)
  }
  return dayText
}

/** ISO local date-time without zone, with milliseconds, in South Africa (e.g. 2026-11-22T09:15:02.125). */
export function localDateTimeSast (now = Date.now()): string {
  if (now !== millis) {
    millis = now
    millisText = new Date(now + SAST_OFFSET_MS).toISOString().slice(0, 23)
  }
  return millisText
}

const INSTANT = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})?)?$/
const LATEST = Date.UTC(9999, 11, 31, 0, 0, 0)

/**
 * An instant written as a date (midnight in South Africa), a local date-time (South African time) or a
 * date-time with Z or an offset. undefined when it is not a real one, or outside 1970 to 9999.
 */
export function parseInstant (text: string): number | undefined {
  const m = INSTANT.exec(text)
  if (m === null) return undefined
  const [, y, mo, d, h = '00', mi = '00', s = '00', frac = '', zone] = m
  const local = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), Number(frac.padEnd(3, '0').slice(0, 3)))
  const check = new Date(local)
  // Date.UTC rolls 31 February over into March: a real date reads back unchanged
  if (check.getUTCFullYear() !== Number(y) || check.getUTCMonth() !== Number(mo) - 1 || check.getUTCDate() !== Number(d) || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return undefined
  const offset = zone === undefined ? SAST_OFFSET_MS : zone === 'Z' ? 0 : (zone[0] === '-' ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6))) * 60_000
  const instant = local - offset
  return instant >= 0 && instant <= LATEST ? instant : undefined
}

const DURATION = /^P(?!$)(?:(\d{1,4})Y)?(?:(\d{1,5})M)?(?:(\d{1,6})W)?(?:(\d{1,7})D)?(?:T(?=\d)(?:(\d{1,8})H)?(?:(\d{1,10})M)?(?:(\d{1,12})(?:\.(\d{1,3}))?S)?)?$/

/**
 * now moved forward by an ISO 8601 duration (PnYnMnWnDTnHnMnS). Years and months are calendar steps in
 * South African time that keep the day of the month, clamped to the month's last day (31 January + P1M
 * is 28 or 29 February, as java.time does); the rest is exact. undefined when the text is no duration
 * or the result is past 9999.
 */
export function advanceBy (now: number, text: string): number | undefined {
  const m = DURATION.exec(text)
  if (m === null) return undefined
  const [years, months, weeks, days, hours, minutes, seconds] = m.slice(1, 8).map((v) => Number(v ?? 0))
  const millis = Number((m[8] ?? '').padEnd(3, '0'))
  const local = new Date(now + SAST_OFFSET_MS)
  const monthIndex = local.getUTCFullYear() * 12 + local.getUTCMonth() + years * 12 + months
  const year = Math.floor(monthIndex / 12)
  if (year > 9999) return undefined
  const lastDay = new Date(Date.UTC(year, (monthIndex % 12) + 1, 0)).getUTCDate()
  const stepped = Date.UTC(year, monthIndex % 12, Math.min(local.getUTCDate(), lastDay), local.getUTCHours(), local.getUTCMinutes(), local.getUTCSeconds(), local.getUTCMilliseconds())
  const result = stepped - SAST_OFFSET_MS + ((weeks * 7 + days) * 24 * 3600 + hours * 3600 + minutes * 60 + seconds) * 1000 + millis
  return result <= LATEST ? result : undefined
}
