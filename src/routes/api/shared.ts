import type { PageInfo } from '../../store/paging.js'

/** Either of the embedded provider's OAuth 2.0 flows, or a bearer token pasted by hand (spec 5). */
export const SECURED: Array<Record<string, string[]>> = [{ sandboxOAuth: ['openid'] }, { bearerAuth: [] }]

/** spec 2.1: a list answer is the page object, sortResponses and the endpoint's named array. */
export function pageReply<K extends string, T> (name: K, result: { page: PageInfo, items: T[] }): { page: PageInfo, sortResponses: never[] } & Record<K, T[]> {
  return { page: result.page, sortResponses: [], [name]: result.items } as { page: PageInfo, sortResponses: never[] } & Record<K, T[]>
}

export const LIST_NOTE = 'Paged on the server (spec 2.1): page is 0-indexed, size 1 to 2000 (the maximum is the sandbox\'s decision); ' +
  'totalPages = ceil(totalElements / size), an empty list has totalPages 0 with first and last true, a page past the end is empty.'
