import { LATEST_VERSION, VERSIONS } from '../api-versions.js'

type Json = Record<string, any>

/**
 * The documents as each version of the API presents them (spec 9): every version is served from one set of
 * routes, so one generated document is rewritten per request with the version's server (OpenAPI 3) or base
 * path (Swagger 2.0), and, where the version is deprecated, a note and every operation marked deprecated.
 * The unversioned /api/... gets the document as it is.
 */
export function versionedDocuments (publicUrl: string, deprecationDate: string): (doc: Json, version: string | undefined) => Json {
  const basePath = new URL(publicUrl).pathname.replace(/\/$/, '')
  return (doc, version) => {
    if (version === undefined) return doc
    const status = VERSIONS[version]
    const deprecated = status === 'deprecated'
    const note = deprecated
      ? `Version ${version} is deprecated (Deprecation: ${deprecationDate}): its operations answer with Deprecation and Link headers. Move to /api/... (${LATEST_VERSION}).\n\n`
      : `Version ${version} (${status}) serves the operations of ${LATEST_VERSION}.\n\n`
    const infoOut = { ...doc.info, version: `${version}.0`, description: `${note}${doc.info.description as string}` }
    const paths = deprecated
      ? Object.fromEntries(Object.entries(doc.paths as Json).map(([p, item]) => [p, Object.fromEntries(Object.entries(item as Json).map(([m, op]) => [m, { ...op, deprecated: true }]))]))
      : doc.paths
    const location = doc.swagger === undefined
      ? { servers: [{ url: `${publicUrl}/${version}`, description: `version ${version} (${status})` }] }
      : { basePath: `${basePath}/${version}` }
    return { ...doc, info: infoOut, paths, ...location }
  }
}
