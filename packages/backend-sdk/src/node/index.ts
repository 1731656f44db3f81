/**
 * `@app/backend-sdk/node` — the SDK's Node-only parts, which the rest of the SDK imports on
 * demand when it runs in Node (never in browsers, so browser bundles leave them out): the
 * `node:http` transport of upload chunks and file paths as upload sources. Not needed by
 * apps: pass a file path to `uploadResumable` and the SDK uses them itself.
 */
export { forFetch, type NodeRequestInit, nodeFetch } from '../http/node';
export { openFile } from '../tus/file';
