import { createContext, type ReactNode, useContext } from 'react';

const BackendContext = createContext<unknown>(null);

/** Props of {@link BackendProvider}. */
export interface BackendProviderProps<TClient> {
  /**
   * The one SDK client the app uses. Create it once, outside render.
   *
   * @example
   * const client = createClient(url, anonKey);
   * <BackendProvider client={client}><App /></BackendProvider>
   */
  client: TClient;
  children?: ReactNode;
}

/**
 * Holds one SDK client for every hook below it.
 *
 * @example
 * <BackendProvider client={client}>
 *   <App />
 * </BackendProvider>
 */
export function BackendProvider<TClient>({ client, children }: BackendProviderProps<TClient>) {
  if (client === null || client === undefined) {
    throw new TypeError('BackendProvider needs a `client` prop.');
  }
  return <BackendContext.Provider value={client}>{children}</BackendContext.Provider>;
}

/**
 * The client held by the nearest {@link BackendProvider}.
 *
 * @example
 * const client = useBackendClient<typeof myClient>();
 */
export function useBackendClient<TClient>(): TClient {
  const client = useContext(BackendContext);
  if (client === null) {
    throw new Error('useBackendClient must be used inside <BackendProvider client={…}>.');
  }
  return client as TClient;
}
