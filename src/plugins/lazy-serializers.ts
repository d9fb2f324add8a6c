import SerializerSelector from '@fastify/fast-json-stringify-compiler'

/*
 * Fastify's own response serializer compiler (fast-json-stringify), except that each route's serializer
 * is compiled when the route first answers with that status instead of at start: every route declares
 * its error answers (400, 401, 403, 404, ...) beside its 200, most of those serializers are never used by
 * a given run, and compiling them all cost about 200 ms of start-up CPU. The bytes are the same; a schema fast-json-stringify
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
