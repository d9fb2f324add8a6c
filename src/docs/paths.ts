/** Where the documents are published; the plugin serves them there and the descriptions link to them. */
export const DOCS_PATH = '/api/docs/apidocs'
export const SANDBOX_DOCS_PATH = '/__sandbox/docs'
export const SANDBOX_DOC_NAME = 'Sandbox control API'
/** The bank API's Postman collection (converted from the OpenAPI 3 document) and a matching environment. */
export const POSTMAN_PATH = '/api/docs/postman.json'
export const POSTMAN_ENVIRONMENT_PATH = '/api/docs/postman-environment.json'
