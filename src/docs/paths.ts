/** Where the documents are published; the plugin serves them there and the descriptions link to them. */
export const DOCS_PATH = '/api/docs/apidocs'
export const SANDBOX_DOCS_PATH = '/__sandbox/docs'
export const SANDBOX_DOC_NAME = 'Sandbox control API'
