import ValidatorSelector from '@fastify/ajv-compiler'
import SerializerSelector from '@fastify/fast-json-stringify-compiler'
import t from 'tap'
import { lazySerializers, lazyValidators } from '../../src/plugins/lazy-compilers.js'

const route = (schema: unknown): { method: string, url: string, httpStatus: string, schema: unknown } => ({ method: 'GET', url: '/x', httpStatus: '200', schema })

t.test('a route\'s response serializer is compiled at its first use, and writes what Fastify\'s own writes', async (t) => {
  const schema = { type: 'object', properties: { id: { type: 'string' }, n: { type: 'integer' } }, required: ['id'] }
  const lazy = lazySerializers()(undefined, undefined)(route(schema))
  const eager = SerializerSelector()(undefined, undefined)(route(schema))
  const doc = { id: '7', n: 3, internal: 'dropped' }
  t.equal(lazy(doc), eager(doc))
  t.equal(lazy({ id: '8' }), '{"id":"8"}', 'and keeps the compiled serializer')

  const broken = route({ type: 'object', properties: { a: { $ref: '#/definitions/missing' } } })
  let serialize: ((doc: unknown) => string) | undefined
  t.doesNotThrow(() => { serialize = lazySerializers()(undefined, undefined)(broken) }, 'registering a route compiles nothing')
  t.throws(() => serialize!({ a: 1 }), 'the schema is compiled (and fails) when first used')
})

t.test('a route\'s validator is compiled at its first use, coerces and reports errors as Fastify\'s own does', async (t) => {
  const schema = { type: 'object', properties: { page: { type: 'integer' } }, required: ['page'], additionalProperties: false }
  const options = { customOptions: { coerceTypes: 'array' as const, removeAdditional: false, allErrors: false }, plugins: [] }
  const input = { schema, method: 'GET', url: '/x', httpPart: 'querystring' }
  const lazy = lazyValidators()({}, options)(input)
  const eager = ValidatorSelector()({}, options)(input)
  const a = { page: '3' }
  const b = { page: '3' }
  t.equal(lazy(a), eager(b))
  t.same(a, b, 'coerced the same way')
  t.same(a, { page: 3 })
  t.equal(lazy({ page: 'x' }), false)
  t.same((lazy as unknown as { errors: unknown }).errors, (eager(({ page: 'x' })), (eager as unknown as { errors: unknown }).errors), 'the same errors, where Fastify reads them')
  t.equal(lazy({ page: 1 }), true)
  t.equal((lazy as unknown as { errors: unknown }).errors, null, 'and none after a pass')

  const broken = { ...input, schema: { type: 'object', properties: { a: { $ref: '#/definitions/missing' } } } }
  let validate: ((data: unknown) => unknown) | undefined
  t.doesNotThrow(() => { validate = lazyValidators()({}, options)(broken) }, 'registering a route compiles nothing')
  t.throws(() => validate!({ a: 1 }), 'the schema is compiled (and fails) when first used')
})
