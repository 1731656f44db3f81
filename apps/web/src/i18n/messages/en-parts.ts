// English messages of the components and lib helpers (src/components, src/lib); spread into `en.ts`.
export const enParts = {} as const;
