import neostandard from 'neostandard'

export default [
  ...neostandard({
    ts: true,
    ignores: ['dist/**', 'coverage/**', '.tap/**', 'node_modules/**', 'test/generated/**', 'test/artifacts/**', 'src/client/generated/**']
  }),
  {
    // TypeBox idiom: a schema and its static type share one name (const Party + type Party)
    files: ['src/schemas/**/*.ts'],
    rules: { '@typescript-eslint/no-redeclare': 'off' }
  }
]
