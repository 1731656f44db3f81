import type { enScreens } from './en-screens';

// Arabic messages of the screens (src/screens, App.tsx, the link pages and links section); spread into `ar.ts`.
export const arScreens: Record<keyof typeof enScreens, string> = {};
