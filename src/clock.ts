// The bank is South African: dates and the zone-less timestamps of the samples are in South African
// Standard Time (UTC+02:00, no daylight saving), so "today" turns at midnight in Johannesburg.
const SAST_OFFSET_MS = 2 * 60 * 60 * 1000
const DAY_MS = 24 * 60 * 60 * 1000

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
