import SerializerSelector from '@fastify/fast-json-stringify-compiler'
import t from 'tap'
import { lazySerializers } from '../../src/plugins/lazy-serializers.js'

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
