import {
  type QueryClient,
  type QueryKey,
  type UseMutationResult,
  type UseQueryResult,
  useMutation,
  useQuery,
  useQueryClient,
} from '@tanstack/react-query';
import { useBackendClient } from './provider';
import type { ResultLike } from './types';

/**
 * The data of a `{ data, error }` result, or its error thrown (non-`Error` values wrapped),
 * so caches and `try` blocks see failures.
 *
 * @example
 * const rows = await unwrap(client.from('files').select());
 */
export async function unwrap<T>(result: PromiseLike<ResultLike<T>> | ResultLike<T>): Promise<T> {
  const { data, error } = await result;
  if (error)
    throw error instanceof Error
      ? error
      : Object.assign(new Error(String(error)), { cause: error });
  return data as T;
}

/** Options of {@link useBackendQuery}. */
export interface BackendQueryOptions {
  /** Run the query only when true (e.g. once a session exists). Default true. */
  enabled?: boolean;
  /** How long a result stays fresh, in ms (default from the provider: 30 s). */
  staleTime?: number;
  /** Poll every n ms (default: no polling). */
  refetchInterval?: number | false;
}

/**
 * A cached query through the client: loading and error state, `refetch()`, shared by every
 * component using the same key, refreshed when a mutation invalidates the key.
 *
 * @example
 * const folders = useBackendQuery(['folders', parentId], (client) =>
 *   client.from('folders').select('*').eq('parent_id', parentId).order('name'));
 * if (folders.isPending) return <Spinner />;
 * if (folders.error) return <p role="alert">{errorMessage(folders.error)}</p>;
 */
export function useBackendQuery<TData, TClient = unknown>(
  queryKey: QueryKey,
  fetcher: (client: TClient, signal: AbortSignal) => PromiseLike<ResultLike<TData>>,
  options: BackendQueryOptions = {},
): UseQueryResult<TData> {
  const client = useBackendClient<TClient>();
  return useQuery({
    queryKey,
    queryFn: ({ signal }) => unwrap(fetcher(client, signal)),
    enabled: options.enabled ?? true,
    ...(options.staleTime === undefined ? {} : { staleTime: options.staleTime }),
    ...(options.refetchInterval === undefined ? {} : { refetchInterval: options.refetchInterval }),
  });
}

/** Options of {@link useBackendMutation}. */
export interface BackendMutationOptions<TData, TVariables> {
  /** Query keys (prefixes) to refetch after success. */
  invalidates?: QueryKey[] | ((data: TData, variables: TVariables) => QueryKey[]);
  /** Update the cache directly with the result (runs before invalidation). */
  onSuccess?: (data: TData, variables: TVariables, queryClient: QueryClient) => void;
  /** Called with the error of a failed call. */
  onError?: (error: Error, variables: TVariables) => void;
}

/**
 * A write through the client with pending and error state; on success it updates the cache
 * (`onSuccess`) and refetches the queries it `invalidates`.
 *
 * @example
 * const rename = useBackendMutation(
 *   (v: { id: string; name: string }, client) =>
 *     client.from('folders').update({ name: v.name }).eq('id', v.id).select().single(),
 *   { invalidates: [['folders']] },
 * );
 * rename.mutate({ id, name });
 */
export function useBackendMutation<TData, TVariables = void, TClient = unknown>(
  mutator: (variables: TVariables, client: TClient) => PromiseLike<ResultLike<TData>>,
  options: BackendMutationOptions<TData, TVariables> = {},
): UseMutationResult<TData, Error, TVariables> {
  const client = useBackendClient<TClient>();
  const queryClient = useQueryClient();
  return useMutation<TData, Error, TVariables>({
    mutationFn: (variables) => unwrap(mutator(variables, client)),
    onSuccess: async (data, variables) => {
      options.onSuccess?.(data, variables, queryClient);
      const keys =
        typeof options.invalidates === 'function'
          ? options.invalidates(data, variables)
          : (options.invalidates ?? []);
      await Promise.all(keys.map((queryKey) => queryClient.invalidateQueries({ queryKey })));
    },
    onError: (error, variables) => options.onError?.(error, variables),
  });
}
