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
  },
  {
    // an ES module's import of node:http loads Node's undici and http2 at every start (src/node-http.ts says why)
    files: ['src/**/*.ts'],
    ignores: ['src/node-http.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        paths: ['node:http', 'http'].map((name) => ({ name, allowTypeImports: true, message: 'take it from src/node-http.ts: an ES import of http loads undici and http2 at start' }))
      }]
    }
  }
]
