/*
 * Where the project's files are, for every module that reads one. This module sits one level below the
 * project's root in each form the code runs in: src/files.ts from the sources, dist/files.js compiled, and
 * inside dist/bundle*.js bundled (scripts/bundle.mjs), where every module's import.meta.url is the bundle's.
 * So places are named from here, never from a module's own place deeper in the tree.
 */

/** The project's root: package.json, fixtures/, scenarios/, console/, node_modules/. */
export const ROOT = new URL('../', import.meta.url)

/** The directory of the running code (src/ or dist/): dist/verified-data.json is written there by the build. */
export const CODE_DIR = new URL('./', import.meta.url)

export const PACKAGE_JSON = new URL('package.json', ROOT)
