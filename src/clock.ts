// The bank is South African: dates and the zone-less timestamps of the samples are in South African
// Standard Time (UTC+02:00, no daylight saving), so "today" turns at midnight in Johannesburg.
const SAST_OFFSET_MS = 2 * 60 * 60 * 1000

/** YYYY-MM-DD in South Africa. */
export function todaySast (now = Date.now()): string {
  return new Date(now + SAST_OFFSET_MS).toISOString().slice(0, 10)
}

/** ISO local date-time without zone, with milliseconds, in South Africa (e.g. 2026-11-22T09:15:02.125). */
export function localDateTimeSast (now = Date.now()): string {
  return new Date(now + SAST_OFFSET_MS).toISOString().slice(0, 23)
}
