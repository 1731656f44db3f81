import type { enParts } from './en-parts';

// Arabic messages of the components and lib helpers (src/components, src/lib); spread into `ar.ts`.
export const arParts: Record<keyof typeof enParts, string> = {};
