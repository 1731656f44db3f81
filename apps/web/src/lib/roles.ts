/**
 * My role on any row, for the UI to offer only what the role allows (the backend decides and
 * refuses anyway: row level security). 'owner' for my own items; else the strongest of my
 * grants on the item or on a folder above it (`ancestors`); else null.
 */
import { useBackendQuery, useUser } from '@app/backend-react';
import { useMemo } from 'react';
import { keys } from './api';
import type { DriveClient } from './client-types';

export type Role = 'owner' | 'editor' | 'viewer';

/** One of my grants: the item it is on, and the role it gives me. */
export interface MyGrant {
  item_id: string;
  role: 'editor' | 'viewer';
}

/** What a role is computed from: a row's owner, id and the folders above it. */
export interface Placed {
  id: string;
  owner_id?: string;
  ancestors?: string[] | null;
}

const RANK: Record<Role, number> = { viewer: 1, editor: 2, owner: 3 };

/** The stronger of two roles (null: none). */
export function stronger(a: Role | null, b: Role | null): Role | null {
  if (!a) return b;
  if (!b) return a;
  return RANK[a] >= RANK[b] ? a : b;
}

/** My grants by item id (the strongest when an item has several). */
export function grantMap(grants: readonly MyGrant[]): Map<string, Role> {
  const out = new Map<string, Role>();
  for (const g of grants)
    out.set(g.item_id, stronger(out.get(g.item_id) ?? null, g.role) ?? g.role);
  return out;
}

/** My role on a row: owner, the strongest grant on it or above it, or null. */
export function roleOf(
  row: Placed,
  me: string | undefined,
  grants: Map<string, Role>,
): Role | null {
  if (me && row.owner_id === me) return 'owner';
  let role: Role | null = grants.get(row.id) ?? null;
  for (const id of row.ancestors ?? []) role = stronger(role, grants.get(id) ?? null);
  return role;
}

/** The weakest of several roles (what a selection allows: what every item allows). */
export function weakest(roles: ReadonlyArray<Role | null>): Role | null {
  let out: Role | null = 'owner';
  for (const r of roles) {
    if (!r) return null;
    if (out && RANK[r] < RANK[out]) out = r;
  }
  return roles.length ? out : null;
}

/** Editors and owners change things; viewers only look. */
export const canEdit = (role: Role | null) => role === 'owner' || role === 'editor';

/** My grants, read once (and again when access changes: `keys.grants`). */
export function listMyGrants(client: DriveClient, me: string) {
  return client.from('grants').select('item_id,role').eq('grantee_id', me);
}

/** `roleOf` for the signed-in user, with their grants. */
export function useRoles(): (row: Placed) => Role | null {
  const me = useUser()?.id;
  const grants = useBackendQuery<MyGrant[], DriveClient>(
    keys.grants,
    (c) => listMyGrants(c, me ?? '') as never,
    { enabled: Boolean(me) },
  );
  return useMemo(() => {
    const map = grantMap(grants.data ?? []);
    return (row: Placed) => roleOf(row, me, map);
  }, [grants.data, me]);
}
