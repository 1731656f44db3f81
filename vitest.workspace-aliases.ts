/**
 * Inside the monorepo, tests resolve workspace packages to their TypeScript source,
 * so no build is needed before testing. Mirrors `paths` in tsconfig.base.json.
 */
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('.', import.meta.url));

export const workspaceAliases = [
  {
    find: /^@app\/backend-sdk\/([a-z-]+)$/,
    replacement: `${root}packages/backend-sdk/src/$1/index.ts`,
  },
  { find: /^@app\/backend-sdk$/, replacement: `${root}packages/backend-sdk/src/index.ts` },
  { find: /^@app\/backend-react$/, replacement: `${root}packages/backend-react/src/index.ts` },
  {
    find: /^@app\/backend-server\/testing$/,
    replacement: `${root}packages/backend-server/src/testing/index.ts`,
  },
  { find: /^@app\/backend-server$/, replacement: `${root}packages/backend-server/src/index.ts` },
  {
    find: /^@app\/backend-server\/console-api$/,
    replacement: `${root}packages/backend-server/src/console/api-types.ts`,
  },
];
