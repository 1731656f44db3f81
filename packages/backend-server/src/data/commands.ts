/** First words of the data commands (handled by data/cli.ts, loaded only for them). */
export const DATA_COMMANDS: ReadonlySet<string> = new Set([
  'db',
  'migration',
  'export',
  'import',
  's3-keys',
  'signing-keys',
]);
