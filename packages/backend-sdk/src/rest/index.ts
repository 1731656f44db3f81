/**
 * `@app/backend-sdk/rest` — the REST (PostgREST) capability, importable alone.
 */
export { arrayLiteral, type FilterValue, inList, quoteListValue } from './values';
