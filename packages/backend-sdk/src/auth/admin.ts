/**
 * The auth admin API (`/auth/v1/admin/*`): user CRUD, invitations and link generation.
 * Needs the service role (secret) key as the client's key; never ship it to browsers.
 */
import type { Http } from '../http/index';
import { attempt, authFetch, pageInfo } from './api';
import { AdminMfaApi } from './mfa';
import type { AuthResult, User } from './types';

/** Attributes of `createUser` / `updateUserById`. */
export interface AdminUserAttributes {
  email?: string;
  phone?: string;
  password?: string;
  email_confirm?: boolean;
  phone_confirm?: boolean;
  user_metadata?: Record<string, unknown>;
  app_metadata?: Record<string, unknown>;
  role?: string;
  /** e.g. `'24h'`, or `'none'` to lift a ban. */
  ban_duration?: string;
  id?: string;
  password_hash?: string;
}

/** Parameters of `generateLink`. */
export interface GenerateLinkParams {
  type:
    | 'signup'
    | 'invite'
    | 'magiclink'
    | 'recovery'
    | 'email_change_current'
    | 'email_change_new';
  email: string;
  password?: string;
  newEmail?: string;
  options?: { data?: Record<string, unknown>; redirectTo?: string };
}

/** The link properties `generateLink` returns next to the user. */
export interface GenerateLinkProperties {
  action_link: string;
  email_otp: string;
  hashed_token: string;
  redirect_to: string;
  verification_type: string;
}

/** A page of users. */
export interface UserPage {
  users: User[];
  aud: string;
  nextPage: number | null;
  lastPage: number;
  total: number;
}

/** Admin operations on users. */
export class AdminApi {
  private readonly http: Http;
  /** A user's MFA factors. */
  readonly mfa: AdminMfaApi;

  constructor(http: Http) {
    this.http = http;
    this.mfa = new AdminMfaApi(http);
  }

  /**
   * Lists users, 50 per page by default.
   *
   * @example
   * const { data } = await auth.admin.listUsers({ page: 1, perPage: 100 });
   */
  listUsers(params: { page?: number; perPage?: number } = {}): Promise<AuthResult<UserPage>> {
    return attempt(
      { users: null, aud: null, nextPage: null, lastPage: null, total: null },
      async () => {
        let headers = new Headers();
        const body = (await authFetch(this.http, {
          path: '/admin/users',
          query: { page: String(params.page ?? ''), per_page: String(params.perPage ?? '') },
          onHeaders: (h) => {
            headers = h;
          },
        })) as { users: User[]; aud: string };
        return { users: body.users, aud: body.aud, ...pageInfo(headers) };
      },
    );
  }

  /**
   * Creates a user (confirmed when `email_confirm` is true).
   *
   * @example
   * await auth.admin.createUser({ email, password, email_confirm: true });
   */
  createUser(attributes: AdminUserAttributes): Promise<AuthResult<{ user: User }>> {
    return this.user('POST', '/admin/users', attributes);
  }

  /**
   * One user by id.
   *
   * @example
   * const { data: { user } } = await auth.admin.getUserById(id);
   */
  getUserById(id: string): Promise<AuthResult<{ user: User }>> {
    return this.user('GET', `/admin/users/${encodeURIComponent(id)}`);
  }

  /**
   * Updates a user.
   *
   * @example
   * await auth.admin.updateUserById(id, { ban_duration: '24h' });
   */
  updateUserById(id: string, attributes: AdminUserAttributes): Promise<AuthResult<{ user: User }>> {
    return this.user('PUT', `/admin/users/${encodeURIComponent(id)}`, attributes);
  }

  /**
   * Deletes a user (soft-deletes with `shouldSoftDelete`).
   *
   * @example
   * await auth.admin.deleteUser(id);
   */
  deleteUser(id: string, shouldSoftDelete = false): Promise<AuthResult<{ user: User }>> {
    return this.user('DELETE', `/admin/users/${encodeURIComponent(id)}`, {
      should_soft_delete: shouldSoftDelete,
    });
  }

  /**
   * Invites a user by email.
   *
   * @example
   * await auth.admin.inviteUserByEmail('new@example.com');
   */
  inviteUserByEmail(
    email: string,
    options: { data?: Record<string, unknown>; redirectTo?: string } = {},
  ): Promise<AuthResult<{ user: User }>> {
    return this.user('POST', '/invite', { email, data: options.data }, options.redirectTo);
  }

  /**
   * Generates an email action link (signup, invite, magic link, recovery, email change)
   * without sending mail.
   *
   * @example
   * const { data } = await auth.admin.generateLink({ type: 'magiclink', email });
   * console.log(data.properties?.action_link);
   */
  generateLink(
    params: GenerateLinkParams,
  ): Promise<AuthResult<{ properties: GenerateLinkProperties; user: User }>> {
    return attempt({ properties: null, user: null }, async () => {
      const { options, newEmail, ...rest } = params;
      const body = (await authFetch(this.http, {
        method: 'POST',
        path: '/admin/generate_link',
        query: { redirect_to: options?.redirectTo },
        // Options are spread into the body too, as the official client does.
        body: { ...rest, ...options, ...(newEmail ? { new_email: newEmail } : {}) },
      })) as Record<string, unknown>;
      const { action_link, email_otp, hashed_token, redirect_to, verification_type, ...user } =
        body;
      return {
        properties: {
          action_link,
          email_otp,
          hashed_token,
          redirect_to,
          verification_type,
        } as GenerateLinkProperties,
        user: user as User,
      };
    });
  }

  private user(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    body?: unknown,
    redirectTo?: string,
  ) {
    return attempt({ user: null }, async () => {
      const user = (await authFetch(this.http, {
        method,
        path,
        body,
        query: { redirect_to: redirectTo },
      })) as User;
      return { user };
    });
  }
}
