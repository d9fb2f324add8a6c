import { Ajv } from 'ajv'
import t from 'tap'
import { API_SCHEMAS } from '../../src/schemas/index.js'
import { AJV_OPTIONS, AJV_PLUGINS, createValidator } from '../../src/schemas/validation.js'
import { ScenarioSchema } from '../../src/seed/scenario-schema.js'

/*
 * The start of the sandbox does not check its own schemas against JSON Schema's meta-schema (the data
 * validator is made with validateSchema: false, to start faster): this test does, for every shared schema
 * and the scenario file schema, and checks that every one of them compiles.
 */
t.test('every shared schema passes the meta-schema and compiles', async (t) => {
  const ajv = new Ajv({ ...AJV_OPTIONS, validateSchema: true })
  for (const plugin of AJV_PLUGINS) plugin(ajv)
  for (const schema of [...API_SCHEMAS, ScenarioSchema]) {
    t.equal(ajv.validateSchema(schema), true, `${String(schema.$id)}: ${ajv.errorsText(ajv.errors)}`)
    ajv.addSchema(schema)
  }
  for (const schema of [...API_SCHEMAS, ScenarioSchema]) t.doesNotThrow(() => ajv.getSchema(schema.$id!), `${String(schema.$id)} compiles`)
})

t.test('the data validator checks as the strict one does, without coercion', async (t) => {
  const ajv = createValidator(API_SCHEMAS)
  const check = ajv.getSchema('CustomerMessageRequest')!
  t.equal(check({ message: 'Hello', fromDepartment: 'CARD', fromPerson: 'THANDI' }), true)
  t.equal(check({ message: 7, fromDepartment: 'CARD', fromPerson: 'THANDI' }), false, 'a number is not coerced to the string a message is')
  t.match(check.errors, [{ instancePath: '/message', keyword: 'type' }])
})
