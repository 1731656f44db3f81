/**
 * `@app/backend-react` — React bindings for `@app/backend-sdk`: a provider holding one client,
 * and hooks for the session, cached data, uploads and realtime.
 */

// The queue itself is framework-free and lives in the SDK; re-exported for existing imports.
export {
  createUploadQueue,
  type RestoredUpload,
  type UploadControl,
  type UploadEntry,
  type UploadItem,
  type UploadQueue,
  type UploadQueueOptions,
  type UploadRunner,
  type UploadState,
} from '@app/backend-sdk/upload-queue';
export {
  type QueryClient,
  type QueryKey,
  useQueryClient,
} from '@tanstack/react-query';
export { type SessionState, useAuth, useSession, useUser } from './auth';
export { type ClaimsAuthLike, type ClaimsState, useClaims } from './claims';
export { errorMessage } from './error-message';
export {
  type AuthProviders,
  type IdentitiesAuthLike,
  type IdentitiesState,
  type IdentityLike,
  type OAuthRedirectOptions,
  type SettingsAuthLike,
  useAuthProviders,
  useIdentities,
} from './identities';
export {
  type ChangeFilter,
  type LiveMessage,
  type LiveQueriesOptions,
  type LiveTopicOptions,
  useLiveQueries,
  useLiveTopic,
} from './live';
export {
  type FactorLike,
  type MfaChallenge,
  type MfaEnrollment,
  type MfaLike,
  useMfaChallenge,
  useMfaEnrollment,
} from './mfa';
export {
  type OAuthAuthorizationLike,
  type OAuthConsentAuthLike,
  type OAuthConsentState,
  useOAuthConsent,
} from './oauth-consent';
export {
  type PasskeyAuthLike,
  type PasskeyLike,
  type PasskeySignIn,
  type PasskeysState,
  usePasskeySignIn,
  usePasskeys,
} from './passkeys';
export {
  BackendProvider,
  type BackendProviderProps,
  createQueryClient,
  useBackendClient,
} from './provider';
export {
  type BackendMutationOptions,
  type BackendQueryOptions,
  unwrap,
  useBackendMutation,
  useBackendQuery,
} from './query';
export { type RangeQueryOptions, type RangeQueryResult, useRangeQuery } from './range';
export {
  type ChannelStatus,
  type PresenceResult,
  type UseChannelOptions,
  type UsePresenceOptions,
  useChannel,
  usePresence,
} from './realtime';
export type {
  AuthLike,
  ChannelLike,
  RealtimeClientLike,
  ResultLike,
  SessionLike,
  UserLike,
} from './types';
export { type UploadQueueView, useUploadQueue } from './use-upload-queue';
