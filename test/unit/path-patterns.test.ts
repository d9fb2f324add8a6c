import fc from 'fast-check'
import t from 'tap'
import { MAX_PATTERN_LENGTH, MAX_STARS, PathPattern, patternProblem, routerTemplate } from '../../src/path-patterns.js'

/*
 * The matcher of partners' path patterns (issue 50): the same answers as the regular expression it replaced,
 * in steps linear in the path whatever the pattern, the patterns it refuses, and route templates.
 */

/** What path-patterns.ts did before: the pattern as a regular expression (the reference, here only). */
function regexpOf (pattern: string): RegExp {
  const source = pattern.split('**').map((part) => part.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*')).join('.*')
  return new RegExp(`^${source}$`)
}

// Node's limit on a request's head (16 KiB, --max-http-header-size) bounds its request line: no path a journal
// or a fault rule meets is longer (a token in the head leaves about 15,000: test/journal-patterns.test.ts)
const LONGEST_PATH = 16_384

/** Single * in the block of a pattern that has most (between two **): what the cost per character grows with. */
function starsPerBlock (pattern: string): number {
  return Math.max(...pattern.split(/\*{2,}/).map((block) => block.split('*').length - 1))
}

/** The bound proved in path-patterns.ts (Chain): steps per test of one path. */
const bound = (pattern: string, path: string): number => 3 * (starsPerBlock(pattern) + 1) * (path.length + 1) + 2 * pattern.length

/** Steps of one test. */
function stepsOf (pattern: PathPattern, path: string): { matched: boolean, steps: number } {
  const before = pattern.steps
  const matched = pattern.test(path)
  return { matched, steps: pattern.steps - before }
}

// few letters, so that pieces recur and overlap; regular-expression characters, which are literal in a pattern
const patternChar = fc.constantFrom('a', 'b', '/', '*', '*', '.', '+')
const pathChar = fc.constantFrom('a', 'b', '/', '.', '+')
const text = (chars: fc.Arbitrary<string>, maxLength: number): fc.Arbitrary<string> => fc.array(chars, { maxLength }).map((cs) => cs.join(''))

t.test('a pattern matches exactly the paths its regular expression matched', async (t) => {
  fc.assert(fc.property(text(patternChar, 14), text(pathChar, 24), (pattern, path) => {
    const p = new PathPattern(pattern)
    const { matched, steps } = stepsOf(p, path)
    if (matched !== regexpOf(pattern).test(path)) throw new Error(`${pattern} on ${path}: ${matched}`)
    return steps <= bound(pattern, path)
  }), { numRuns: 5000, seed: 50 })
  // paths made of the pattern's own pieces, where greedy placement has choices to get wrong
  const piecesOf = fc.array(fc.constantFrom('a', 'ab', 'a/', '/a', 'b/a', '/'), { minLength: 1, maxLength: 6 })
  fc.assert(fc.property(piecesOf, fc.array(fc.constantFrom('*', '**', '***'), { minLength: 6, maxLength: 6 }), fc.array(fc.constantFrom('a', 'ab', 'a/', '/a', 'b/a', '/', 'b'), { maxLength: 16 }), (pieces, stars, parts) => {
    const pattern = pieces.map((piece, i) => i === 0 ? piece : stars[i - 1] + piece).join('')
    const path = parts.join('')
    const { matched, steps } = stepsOf(new PathPattern(pattern), path)
    if (matched !== regexpOf(pattern).test(path)) throw new Error(`${pattern} on ${path}: ${matched}`)
    return steps <= bound(pattern, path)
  }), { numRuns: 5000, seed: 51 })
  t.pass('5,000 random and 5,000 built pairs agree, each within the bound')
})

t.test('the documented examples', async (t) => {
  const cases: Array<[string, string, boolean]> = [
    ['/api/customers', '/api/customers', true],
    ['/api/customers', '/api/customers/1', false],
    ['/api/customers/*', '/api/customers/1001100000002', true],
    ['/api/customers/*', '/api/customers/1/messages', false],
    ['/api/customers/*/messages', '/api/customers/1001100000002/messages', true],
    ['/api/customers/**', '/api/customers/1/messages', true],
    ['/**/protocol/openid-connect/token', '/auth/realms/sandbox/protocol/openid-connect/token', true],
    ['/api/cust*', '/api/customers', true],
    ['/api/*', '/api/', true],
    ['/api/a.c', '/api/abc', false]
  ]
  for (const [pattern, path, expected] of cases) t.equal(new PathPattern(pattern).test(path), expected, `${pattern} ${expected ? 'matches' : 'does not match'} ${path}`)
})

/** The longest paths, each a different worst case for a different pattern. */
const LONG_PATHS = {
  'one long segment': '/' + 'a'.repeat(LONGEST_PATH - 1),
  'one-letter segments': '/a'.repeat(LONGEST_PATH / 2),
  'digit segments': '/api/customers/' + '1234567890/'.repeat(Math.floor((LONGEST_PATH - 15) / 11))
}

/** Pathological patterns: the issue's, every wildcard allowed, and the longest allowed. */
const PATHOLOGICAL = [
  '/**a**a**a**a**a**a**a**a**a**a**a**a**b',
  '/**a*a*a*a*a*a*a*a*b**',
  '/**/a/*/a/*/a/*/a/*/b/**',
  '/**a/*/*/*/*/*/*/*/*/b**',
  '/**a*a*a*a/a/a/*a*a*a*b**',
  // the longest: ** and a as often as 1,024 characters take them; a long block of pieces
  ('/' + '**a'.repeat(MAX_PATTERN_LENGTH)).slice(0, MAX_PATTERN_LENGTH - 3) + 'b**',
  ('/**' + 'a/'.repeat(MAX_PATTERN_LENGTH)).slice(0, MAX_PATTERN_LENGTH - 10) + '*a*a*a*b**',
  '/**' + 'a*'.repeat(MAX_STARS) + 'a'.repeat(MAX_PATTERN_LENGTH - 6 - 2 * MAX_STARS) + 'b**',
  '/**' + 'a'.repeat(MAX_PATTERN_LENGTH - 6) + 'b**'
]

t.test('a journal full of the longest paths is filtered by any pattern in steps linear in its paths', async (t) => {
  // a journal at its largest holds 40 MB (SANDBOX_JOURNAL_SIZE=10,000 at 4 KiB): some 2,300 of these paths
  const entries = 2300
  for (const pattern of PATHOLOGICAL) {
    t.equal(patternProblem(pattern), undefined, `${pattern.slice(0, 30)}... (${pattern.length} characters) is a pattern a partner may send`)
    const p = new PathPattern(pattern)
    for (const [name, path] of Object.entries(LONG_PATHS)) {
      // the same steps for each entry of the same path (a test keeps nothing from the one before): a few
      // entries stand for the journal's 2,300
      const perPath = stepsOf(p, path).steps
      for (let i = 0; i < 3; i++) t.equal(stepsOf(p, path).steps, perPath)
      const steps = perPath * entries
      t.ok(perPath <= bound(pattern, path), `${pattern.slice(0, 30)}... on ${entries} x ${name}: ${(perPath / path.length).toFixed(2)} steps a character (${(steps / 1e6).toFixed(0)} million), within ${bound(pattern, path)} a path`)
    }
  }
})

t.test('route templates become router templates in linear time', async (t) => {
  const old = (route: string): string => route.replace(/\{([^}/]+)\}/g, ':$1')
  fc.assert(fc.property(text(fc.constantFrom('{', '}', '/', 'a', ':'), 20), (route) => routerTemplate(route) === old(route)), { numRuns: 5000, seed: 52 })
  t.equal(routerTemplate('/api/customers/{customerId}/messages'), '/api/customers/:customerId/messages')
  // a run of { made the regular expression quadratic (3 ms at 1,024 characters, a second at 16,384)
  const started = performance.now()
  t.equal(routerTemplate('/' + '{'.repeat(200_000)), '/' + '{'.repeat(200_000), '200,000 { stay as they are (the regular expression: minutes)')
  t.ok(performance.now() - started < 1000, 'at once')
})

t.test('patterns a partner may not send, in words', async (t) => {
  t.equal(patternProblem('/api/customers/**'), undefined)
  t.equal(patternProblem('api/customers'), 'must start with /')
  t.match(patternProblem('/api/customers?x=1'), /without spaces, \? or #/)
  t.match(patternProblem('/api/caf\u00e9'), /percent-encode/)
  t.match(patternProblem('/api/a b'), /printable ASCII/)
  t.equal(patternProblem('/' + '*/'.repeat(MAX_STARS)), undefined, `${MAX_STARS} single * are fine`)
  t.equal(patternProblem('/' + '*/'.repeat(MAX_STARS + 1)), `must have at most ${MAX_STARS} single * wildcards (** as many as wanted)`)
  t.equal(patternProblem('/' + '**/'.repeat(100)), undefined, '** as many as wanted')
})
