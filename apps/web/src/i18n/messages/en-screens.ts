// English messages of the screens (src/screens, App.tsx, the link pages and links section); spread into `en.ts`.
export const enScreens = {} as const;
