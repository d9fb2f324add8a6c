/*
 * How fault rules and journal filters name requests: a path pattern (* any characters within one segment,
 * ** any characters, the rest literal) and a route template as the API documents write it.
 *
 * A partner writes the patterns, and a fault rule's is tried on every request of the partner: they are matched
 * here without a regular expression (one built from `/**a**a**a...b` held the event loop for minutes on a
 * 5,000-character path), in time linear in the path, with a constant bounded by the wildcards a pattern may
 * have (MAX_STARS). The bound is proved beside the code (PathPattern.test and Chain).
 */

/** The path of a URL as a request line carries it (path and query): without its query. */
export function pathOf (url: string): string {
  const q = url.indexOf('?')
  return q === -1 ? url : url.slice(0, q)
}

/** The path of a request as the client sent it (before version rewriting), without the query. */
export function requestPath (request: { originalUrl: string }): string {
  return pathOf(request.originalUrl)
}

/** Longest pattern (and route template) a partner may send. */
export const MAX_PATTERN_LENGTH = 1024
/** Most single-segment wildcards (*) in one pattern: the matcher's cost per character of a path grows with them. */
export const MAX_STARS = 8

/** The rules of patternProblem, for the documents. */
export const PATTERN_RULES = `starts with /; printable ASCII without spaces, ? or #; at most ${MAX_PATTERN_LENGTH} characters and ${MAX_STARS} single *`

const SLASH = 0x2f
const STAR = 0x2a

/**
 * What is wrong with a pattern a partner sent, in words for a 400 (undefined: nothing; its length aside). A path as sent is
 * printable ASCII (anything else arrives percent-encoded) and has no query or fragment, so a pattern with a
 * space, a control character, a non-ASCII character, ? or # could never match: refused rather than silently
 * matching nothing.
 */
export function patternProblem (pattern: string): string | undefined {
  // the length is the schema's (PathPatternString): one error for one fault
  if (pattern.length > 0 && pattern.charCodeAt(0) !== SLASH) return 'must start with /'
  let stars = 0
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern.charCodeAt(i)
    if (c <= 0x20 || c >= 0x7f || c === 0x3f || c === 0x23) return 'must be a path as sent: printable ASCII without spaces, ? or # (percent-encode the rest), * and ** as wildcards'
    if (c === STAR && pattern.charCodeAt(i - 1) !== STAR && pattern.charCodeAt(i + 1) !== STAR) stars += 1
  }
  return stars > MAX_STARS ? `must have at most ${MAX_STARS} single * wildcards (** as many as wanted)` : undefined
}

/** A literal piece of a pattern (between wildcards), with its Knuth-Morris-Pratt failure table. */
class Piece {
  readonly codes: Uint16Array
  /** fail[i]: length of the longest proper border of codes[0..i]. */
  readonly fail: Int32Array

  constructor (text: string) {
    this.codes = new Uint16Array(text.length)
    for (let i = 0; i < text.length; i++) this.codes[i] = text.charCodeAt(i)
    this.fail = new Int32Array(text.length)
    for (let i = 1, k = 0; i < text.length; i++) {
      while (k > 0 && this.codes[i] !== this.codes[k]) k = this.fail[k - 1]
      if (this.codes[i] === this.codes[k]) k += 1
      this.fail[i] = k
    }
  }

  get length (): number { return this.codes.length }

  reversed (): Piece {
    return new Piece(String.fromCharCode(...this.codes).split('').reverse().join(''))
  }
}

const EXHAUSTED = -2

/**
 * A block: pieces joined by single * (P0 * P1 * ... * Pm, each Pi non-empty but P0 of a pattern's first block
 * and Pm of its last, which may be empty), a part of a pattern between two **. Matching it finds the match that
 * ends first, which is the one to keep: the ** after it spans anything, so the earlier it ends the more is left
 * for the rest.
 *
 * Greedy placement is right: for a given start, placing each Pk at its leftmost occurrence after P(k-1) (the gap
 * free of /) never loses a match. Take any match (a1..am) and the greedy one (g1..gm); by induction gk <= ak:
 * ak is an occurrence after g(k-1)+|P(k-1)|, so the leftmost one is no later, provided ak also lies in the
 * greedy's window, i.e. no / lies between the two ends of P(k-1). If P(k-1) has a /, its first / is the first /
 * after the window's start for both placements, so they are one; if it has none, the text between the two
 * starts and the later end is free of /. And later starts end no earlier (the same induction), so the first
 * start that matches gives the earliest end.
 *
 * Cost, the bound of the whole matcher: one Knuth-Morris-Pratt scanner per piece reads the path forwards only
 * (a later start of P0 needs each Pk at or after where the last start needed it, so a scanner never goes back),
 * and each remembers how far it checked its gaps for a /; none reads past the end of the match it finds (the
 * occurrence a scanner holds is the earliest any later start can use). So matching a block over a region of r
 * characters reads at most 2(m+1)r characters plus m steps per start tried (at most one per segment, see
 * slashFrom: a start that fails makes every later one up to the next / fail),
 * and the regions of a pattern's blocks do not overlap: at most ~3(MAX_STARS+1) steps per character of the
 * path, plus the pattern's length for the failure tables, whatever the pattern (`steps` counts them).
 */
class Chain {
  private readonly pos: Int32Array
  private readonly state: Int32Array
  private readonly found: Int32Array
  // per piece after the first: how far its gap was searched for a / (scanned up to), and the / found (-1: none)
  private readonly gapTo: Int32Array
  private readonly gapSlash: Int32Array
  // the path, read forwards or backwards (the last block of a pattern is matched from the path's end: index i
  // is then the character at mirror - i)
  private path = ''
  private mirror = -1
  private to = 0
  steps = 0

  constructor (readonly pieces: Piece[]) {
    const n = pieces.length
    this.pos = new Int32Array(n)
    this.state = new Int32Array(n)
    this.found = new Int32Array(n)
    this.gapTo = new Int32Array(n)
    this.gapSlash = new Int32Array(n)
  }

  get stars (): number { return this.pieces.length - 1 }

  /**
   * The earliest end of a match within text[from, to): P0 at from when anchored, else at any start from `from`
   * on; -1 when there is none.
   */
  match (path: string, backwards: boolean, from: number, to: number, anchored: boolean): number {
    this.path = path
    this.mirror = backwards ? path.length - 1 : -1
    this.to = to
    this.pos.fill(from)
    this.state.fill(0)
    this.found.fill(-1)
    this.gapTo.fill(from)
    this.gapSlash.fill(-1)
    const [first] = this.pieces
    if (anchored) return this.literalAt(first, from) ? Math.max(this.rest(from + first.length), -1) : -1
    for (let start = from; ;) {
      const a0 = this.next(0, start)
      if (a0 < 0) return -1
      const end = this.rest(a0 + first.length)
      if (end >= 0) return end
      if (end === EXHAUSTED) return -1
      start = this.slashFrom(a0) + 1
    }
  }

  /**
   * The first / at or after a start that failed (to when none): every start up to it fails too, so the next to
   * try is after it. A start a0' in (a0, s] places each piece in the same windows, between the same /, as a0
   * did (P0 with a / occurs once in a window, so P0 has none; and by the induction of the greedy's proof, two
   * placements in one window have no / between their ends), so it fails at the same piece or before. The
   * scans are disjoint, as the next start is after the / found.
   */
  private slashFrom (a0: number): number {
    let i = a0
    while (i < this.to && this.codeAt(i) !== SLASH) i++
    this.steps += i - a0 + 1
    return i
  }

  /** P1..Pm placed greedily from e: the end of Pm; -1 when not from this e, EXHAUSTED when a piece occurs nowhere further on (no later start can match either). */
  private rest (e: number): number {
    for (let k = 1; k < this.pieces.length; k++) {
      this.steps += 1
      const ak = this.next(k, e)
      if (ak < 0) return EXHAUSTED
      if (!this.gapFree(k, e, ak)) return -1
      e = ak + this.pieces[k].length
    }
    return e
  }

  private literalAt (piece: Piece, at: number): boolean {
    if (at + piece.length > this.to) return false
    for (let i = 0; i < piece.length; i++) {
      this.steps += 1
      if (this.codeAt(at + i) !== piece.codes[i]) return false
    }
    return true
  }

  /** The leftmost occurrence of piece k starting at or after `from` (calls for one piece come with `from` never decreasing); -1 when none. */
  private next (k: number, from: number): number {
    const held = this.found[k]
    if (held >= from) return held
    if (held === EXHAUSTED) return -1
    const piece = this.pieces[k]
    const { codes, fail } = piece
    const length = codes.length
    if (length === 0) return from <= this.to ? from : -1
    let p = this.pos[k]
    let q = this.state[k]
    if (p < from) {
      p = from
      q = 0
    }
    // the hot loop of the matcher, on locals
    const { path, mirror, to } = this
    const first = codes[0]
    let steps = 0
    let start = -1
    while (p < to) {
      const c = mirror < 0 ? path.charCodeAt(p) : path.charCodeAt(mirror - p)
      p += 1
      steps += 1
      if (q === 0) {
        if (c !== first) continue
      } else {
        while (q > 0 && codes[q] !== c) {
          q = fail[q - 1]
          steps += 1
        }
      }
      if (codes[q] === c) q += 1
      if (q === length) {
        q = fail[length - 1]
        if (p - length >= from) {
          start = p - length
          break
        }
      }
    }
    this.steps += steps
    this.pos[k] = p
    this.state[k] = q
    this.found[k] = start === -1 ? EXHAUSTED : start
    return start
  }

  private codeAt (i: number): number {
    return this.mirror < 0 ? this.path.charCodeAt(i) : this.path.charCodeAt(this.mirror - i)
  }

  /** Whether text[e, a) has no / (for piece k, calls come with e and a never decreasing). */
  private gapFree (k: number, e: number, a: number): boolean {
    const slash = this.gapSlash[k]
    if (slash >= e) return slash >= a
    let i = Math.max(e, this.gapTo[k])
    for (; i < a; i++) {
      this.steps += 1
      if (this.codeAt(i) === SLASH) {
        this.gapTo[k] = i + 1
        this.gapSlash[k] = i
        return false
      }
    }
    this.gapTo[k] = i
    return true
  }
}

/** A pattern split at its ** (runs of two or more *) into blocks, and each block at its single * into pieces. */
function blocksOf (pattern: string): string[][] {
  const blocks: string[][] = [[]]
  let piece = ''
  for (let i = 0; i < pattern.length;) {
    if (pattern.charCodeAt(i) !== STAR) {
      piece += pattern[i]
      i += 1
      continue
    }
    let run = 0
    while (pattern.charCodeAt(i) === STAR) {
      run += 1
      i += 1
    }
    blocks[blocks.length - 1].push(piece)
    piece = ''
    if (run >= 2) blocks.push([])
  }
  blocks[blocks.length - 1].push(piece)
  return blocks
}

/** A compiled path pattern; test() is linear in the path (see Chain). */
export class PathPattern {
  /** Without **: the pieces but the last, matched from the path's start, and the last, at its end. */
  private readonly first: Chain
  private readonly tail: Piece | undefined
  private readonly middle: Chain[] = []
  /** With **: the last block, its pieces reversed and in reverse order (matched from the path's end). */
  private readonly last: Chain | undefined

  constructor (readonly pattern: string) {
    const blocks = blocksOf(pattern).map((pieces) => pieces.map((p) => new Piece(p)))
    if (blocks.length === 1) {
      const pieces = blocks[0]
      this.first = new Chain(pieces.length === 1 ? pieces : pieces.slice(0, -1))
      this.tail = pieces.length === 1 ? undefined : pieces[pieces.length - 1]
      return
    }
    this.first = new Chain(blocks[0])
    this.middle = blocks.slice(1, -1).map((pieces) => new Chain(pieces))
    this.last = new Chain(blocks[blocks.length - 1].map((p) => p.reversed()).reverse())
  }

  /** Steps taken by all tests so far (characters read or compared, pieces placed): what the bound above counts. */
  get steps (): number {
    return this.first.steps + this.middle.reduce((sum, c) => sum + c.steps, 0) + (this.last?.steps ?? 0)
  }

  test (path: string): boolean {
    const n = path.length
    if (this.last === undefined) return this.whole(path)
    let at = this.first.match(path, false, 0, n, true)
    for (let j = 0; j < this.middle.length && at >= 0; j++) at = this.middle[j].match(path, false, at, n, false)
    // the last block from the path's end, within what the blocks before it left
    return at >= 0 && this.last.match(path, true, 0, n - at, true) >= 0
  }

  /** A pattern without **: P0 .. P(m-1) from the start, Pm at the end, and the gap before Pm free of /. */
  private whole (path: string): boolean {
    const n = path.length
    if (this.tail === undefined) return this.first.match(path, false, 0, n, true) === n
    const end = n - this.tail.length
    if (end < 0) return false
    const e = this.first.match(path, false, 0, end, true)
    if (e < 0) return false
    for (let i = 0; i < this.tail.length; i++) {
      this.first.steps += 1
      if (path.charCodeAt(end + i) !== this.tail.codes[i]) return false
    }
    for (let i = e; i < end; i++) {
      this.first.steps += 1
      if (path.charCodeAt(i) === SLASH) return false
    }
    return true
  }
}

const compiled = new Map<string, PathPattern>()

/** The path pattern compiled; the patterns in use are few, so each is compiled once. */
export function pathPattern (pattern: string): PathPattern {
  let p = compiled.get(pattern)
  if (p === undefined) {
    p = new PathPattern(pattern)
    if (compiled.size < 1000) compiled.set(pattern, p)
  }
  return p
}

/**
 * A route template in the router's form: {customerId} becomes :customerId (a :name is kept). A name is what
 * lies between { and the next } with no / in it (as /\{([^}/]+)\}/g took it, which was quadratic on a run of {).
 */
export function routerTemplate (route: string): string {
  let out = ''
  let i = 0
  for (let open = route.indexOf('{'); open !== -1; open = route.indexOf('{', i)) {
    let j = open + 1
    while (j < route.length && route.charCodeAt(j) !== 0x7d && route.charCodeAt(j) !== SLASH) j++
    if (j === route.length || route.charCodeAt(j) === SLASH) {
      // no } before the next / or the end: neither this { nor any before it names anything
      out += route.slice(i, j)
      i = j
    } else if (j === open + 1) {
      out += route.slice(i, j)
      i = j
    } else {
      out += `${route.slice(i, open)}:${route.slice(open + 1, j)}`
      i = j + 1
    }
  }
  return out + route.slice(i)
}
