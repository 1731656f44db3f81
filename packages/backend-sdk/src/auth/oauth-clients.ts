/**
 * The admin API of the project's OAuth 2.1 server's clients (`/auth/v1/admin/oauth/clients`):
 * the official client's `auth.admin.oauth.*`, same names and shapes. Needs the service role
 * (secret) key; never ship it to browsers. Kept out of the main bundle: `withOAuthServer`
 * of `@app/backend-sdk/oauth-server` puts it on a client.
 */

import type { AuthError } from '../errors';
import type { Http } from '../http/index';
import { authFetch, pageInfo } from './api';
import { type MfaResult, run } from './mfa';

/** How a client authenticates at the token endpoint. */
export type OAuthClientTokenEndpointAuthMethod =
  | 'none'
  | 'client_secret_basic'
  | 'client_secret_post';

/** A registered OAuth client. */
export interface OAuthClient {
  client_id: string;
  client_name: string;
  /** Only in the answers of create and regenerate: it is never shown again. */
  client_secret?: string;
  client_type: 'public' | 'confidential';
  token_endpoint_auth_method: OAuthClientTokenEndpointAuthMethod;
  registration_type: 'dynamic' | 'manual';
  client_uri?: string;
  logo_uri?: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: 'code'[];
  scope?: string;
  created_at: string;
  updated_at: string;
}

/** Parameters of `createClient`. */
export interface CreateOAuthClientParams {
  client_name: string;
  client_uri?: string;
  /** Where the client may receive codes; matched exactly. */
  redirect_uris: string[];
  /** Default `authorization_code` and `refresh_token`. */
  grant_types?: string[];
  response_types?: 'code'[];
  scope?: string;
  /** `none` makes a public client (PKCE only, no secret); default `client_secret_basic`. */
  token_endpoint_auth_method?: OAuthClientTokenEndpointAuthMethod;
}

/** Parameters of `updateClient`: only the fields given change. */
export interface UpdateOAuthClientParams {
  client_name?: string;
  client_uri?: string;
  logo_uri?: string;
  redirect_uris?: string[];
  grant_types?: string[];
  token_endpoint_auth_method?: OAuthClientTokenEndpointAuthMethod;
}

/** A page of clients, with the page numbers of the official client's `listClients`. */
export type OAuthClientList =
  | {
      data: { clients: OAuthClient[]; nextPage: number | null; lastPage: number; total: number };
      error: null;
    }
  | { data: { clients: [] }; error: AuthError };

const path = (id = '', rest = '') =>
  `/admin/oauth/clients${id ? `/${encodeURIComponent(id)}` : ''}${rest}`;

/** `auth.admin.oauth`: register, list, read, change and remove OAuth clients. */
export class OAuthClientsAdminApi {
  private readonly http: Http;

  constructor(http: Http) {
    this.http = http;
  }

  private client(method: 'GET' | 'POST' | 'PUT', p: string, body?: unknown) {
    return run(async () => (await authFetch(this.http, { method, path: p, body })) as OAuthClient);
  }

  /**
   * Lists clients, newest first; `perPage` defaults to the server's 50.
   *
   * @example
   * const { data } = await client.auth.admin.oauth.listClients({ page: 1, perPage: 20 });
   */
  async listClients(params: { page?: number; perPage?: number } = {}): Promise<OAuthClientList> {
    let headers = new Headers();
    const result = await run(
      async () =>
        (await authFetch(this.http, {
          path: path(),
          query: { page: String(params.page ?? ''), per_page: String(params.perPage ?? '') },
          onHeaders: (h) => {
            headers = h;
          },
        })) as { clients: OAuthClient[] },
    );
    if (result.error) return { data: { clients: [] }, error: result.error };
    return { data: { ...result.data, ...pageInfo(headers) }, error: null };
  }

  /**
   * Registers a client. The answer carries its `client_secret`, shown this once.
   *
   * @example
   * const { data } = await client.auth.admin.oauth.createClient({
   *   client_name: 'Notes', redirect_uris: ['https://notes.example/callback'],
   * });
   */
  createClient(params: CreateOAuthClientParams): Promise<MfaResult<OAuthClient>> {
    return this.client('POST', path(), params);
  }

  /**
   * One client.
   *
   * @example
   * const { data } = await client.auth.admin.oauth.getClient(clientId);
   */
  getClient(clientId: string): Promise<MfaResult<OAuthClient>> {
    return this.client('GET', path(clientId));
  }

  /**
   * Changes the fields given.
   *
   * @example
   * await client.auth.admin.oauth.updateClient(clientId, { client_name: 'Notes 2' });
   */
  updateClient(clientId: string, params: UpdateOAuthClientParams): Promise<MfaResult<OAuthClient>> {
    return this.client('PUT', path(clientId), params);
  }

  /**
   * Removes a client; its sessions end.
   *
   * @example
   * await client.auth.admin.oauth.deleteClient(clientId);
   */
  async deleteClient(clientId: string): Promise<MfaResult<null>> {
    return run(async () => {
      await authFetch(this.http, { method: 'DELETE', path: path(clientId) });
      return null;
    });
  }

  /**
   * A new secret for a confidential client; the old one stops working at once.
   *
   * @example
   * const { data } = await client.auth.admin.oauth.regenerateClientSecret(clientId);
   */
  regenerateClientSecret(clientId: string): Promise<MfaResult<OAuthClient>> {
    return this.client('POST', path(clientId, '/regenerate_secret'));
  }
}
