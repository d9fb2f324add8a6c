import SerializerSelector from '@fastify/fast-json-stringify-compiler'

/*
 * Fastify's own response serializer compiler (fast-json-stringify), except that each route's serializer
 * is compiled when the route first answers with that status instead of at start: the API is mounted
 * under eight version prefixes and most of those serializers are never used by a given run, and compiling
 * them all took about a third of the start-up. The bytes are the same; a schema fast-json-stringify
 * cannot compile fails at its first use instead of at start (every route's answers are tested).
 */
type Factory = ReturnType<typeof SerializerSelector>

export function lazySerializers (): Factory {
  const build = SerializerSelector()
  return (externalSchemas, options) => {
    const compile = build(externalSchemas, options)
    return (route) => {
      let serialize: ((doc: unknown) => string) | undefined
      return (doc) => (serialize ??= compile(route))(doc)
    }
  }
}
