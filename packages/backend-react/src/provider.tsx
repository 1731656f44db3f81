import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createContext, type ReactNode, useContext, useState } from 'react';

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
  /**
   * The query cache of the data hooks. Default: one created for this provider (queries
   * stay fresh for 30 s and are not retried on client errors).
   *
   * @example
   * <BackendProvider client={client} queryClient={new QueryClient()}>…</BackendProvider>
   */
  queryClient?: QueryClient;
  children?: ReactNode;
}

/** The query cache {@link BackendProvider} creates when none is given. */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 30_000,
        refetchOnWindowFocus: false,
        retry: (failures, error) => failures < 2 && isRetryable(error),
      },
      mutations: { retry: false },
    },
  });
}

function isRetryable(error: unknown): boolean {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status !== 'number' || status === 0 || status >= 500;
}

/**
 * Holds one SDK client (and the query cache) for every hook below it.
 *
 * @example
 * <BackendProvider client={client}>
 *   <App />
 * </BackendProvider>
 */
export function BackendProvider<TClient>({
  client,
  queryClient,
  children,
}: BackendProviderProps<TClient>) {
  if (client === null || client === undefined) {
    throw new TypeError('BackendProvider needs a `client` prop.');
  }
  const [ownQueryClient] = useState(() => queryClient ?? createQueryClient());
  return (
    <BackendContext.Provider value={client}>
      <QueryClientProvider client={queryClient ?? ownQueryClient}>{children}</QueryClientProvider>
    </BackendContext.Provider>
  );
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
