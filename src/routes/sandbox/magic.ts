import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { MAGIC_VALUES } from '../../faults/magic.js'
import { ref } from '../../schemas/common.js'
import { MagicList } from '../../schemas/sandbox-controls.js'

/** The catalogue of magic values (issue 11): public, it is documentation that a test can walk. */
export default async function magicControl (fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const body = { values: MAGIC_VALUES }
  app.get('/magic', {
    schema: {
      tags: ['sandbox faults'],
      operationId: 'listMagicValues',
      summary: 'List the magic values',
      description: 'Inputs with fixed outcomes, so that an unmodified application reaches an outcome through data alone: the value, the operation and field ' +
        'that take it, and the fault it applies (Sandbox-Fault syntax) or the answer it gives. Every value is valid input for its field. No token needed.',
      security: [],
      response: { 200: ref(MagicList) }
    },
    config: { public: true }
  }, async () => body)
}
