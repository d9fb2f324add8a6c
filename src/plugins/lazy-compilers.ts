import ValidatorSelector from '@fastify/ajv-compiler'
import SerializerSelector from '@fastify/fast-json-stringify-compiler'

/*
 * Fastify's own compilers (ajv for what a request carries, fast-json-stringify for answers), except that
 * each route's validator or serializer is compiled when the route first needs it instead of at start:
 * every route declares its error answers (400, 401, 403, 404, ...) beside its 200 and most routes are
 * never called by a given run, and compiling them all cost about 200 ms (serializers) and 150 ms
 * (validators) of start-up CPU. The checks and the bytes are the same; a schema that cannot compile fails
 * at its first use instead of at start (every route and answer is tested).
 */
type SerializerFactory = ReturnType<typeof SerializerSelector>
type ValidatorFactory = ReturnType<typeof ValidatorSelector>

export function lazySerializers (): SerializerFactory {
  const build = SerializerSelector()
  return (externalSchemas, options) => {
    const compile = build(externalSchemas, options)
    return (route) => {
      let serialize: ((doc: unknown) => string) | undefined
      return (doc) => (serialize ??= compile(route))(doc)
    }
  }
}

type Validate = ((data: unknown) => unknown) & { errors?: unknown }

/** A validator made by compile() when it is first called; Fastify reads a failure's errors from the function it was given. */
export function lazyValidator<V extends Validate> (compile: () => V): V {
  let validate: V | undefined
  const lazy: Validate = (data) => {
    validate ??= compile()
    const result = validate(data)
    lazy.errors = validate.errors
    return result
  }
  return lazy as V
}

export function lazyValidators (): ValidatorFactory {
  const build = ValidatorSelector()
  return (externalSchemas, options) => {
    // the compiler itself (an ajv instance holding every shared schema) is made when first needed too
    let compile: ReturnType<ValidatorFactory> | undefined
    return (route) => lazyValidator(() => (compile ??= build(externalSchemas, options))(route) as Validate) as ReturnType<ReturnType<ValidatorFactory>>
  }
}
