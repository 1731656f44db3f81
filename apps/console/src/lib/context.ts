import type { Client } from '@app/backend-sdk';
import type { ConsoleSession } from '@app/backend-server/console-api';
import { createContext, useContext } from 'react';
import type { ConsoleApi } from './api';

export interface ConsoleContext {
  session: ConsoleSession;
  api: ConsoleApi;
  /** An SDK client with the service-role key: it bypasses row level security. */
  client: Client;
}

export const Console = createContext<ConsoleContext | null>(null);

/** The console's session, API and SDK client. */
export function useConsole(): ConsoleContext {
  const value = useContext(Console);
  if (!value) throw new Error('useConsole outside the console');
  return value;
}
