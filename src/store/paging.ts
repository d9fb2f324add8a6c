import type { Paging } from '../schemas/common.js'

export interface PageInfo {
  page: number
  pageSize: number
  numberOfElements: number
  totalElements: number
  totalPages: number
  first: boolean
  last: boolean
}

/**
 * spec 2.1 paging over a list already in order: a slice, never a scan. totalPages = ceil(total/size);
 * an empty list has totalPages 0 with first and last true; a page past the end is empty and last.
 */
export function pageOf<T> (items: readonly T[], paging: Paging): { page: PageInfo, items: T[] } {
  const { page, size } = paging
  const totalElements = items.length
  const totalPages = Math.ceil(totalElements / size)
  const start = page * size
  const slice = start >= totalElements ? [] : items.slice(start, start + size)
  return {
    page: {
      page,
      pageSize: size,
      numberOfElements: slice.length,
      totalElements,
      totalPages,
      first: page === 0,
      last: page >= totalPages - 1
    },
    items: slice
  }
}

/** spec 2.1: a list answer is the page object, sortResponses and the endpoint's named array. */
export function pageReply<K extends string, T> (name: K, result: { page: PageInfo, items: T[] }): { page: PageInfo, sortResponses: never[] } & Record<K, T[]> {
  return { page: result.page, sortResponses: [], [name]: result.items } as { page: PageInfo, sortResponses: never[] } & Record<K, T[]>
}
