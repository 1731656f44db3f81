import { describe, expect, it } from 'vitest';
import { canEdit, grantMap, roleOf, stronger, weakest } from '../../../src/lib/roles';

const me = 'me';
const grants = grantMap([
  { item_id: 'team', role: 'viewer' },
  { item_id: 'team-drafts', role: 'editor' },
  { item_id: 'loose-file', role: 'viewer' },
  { item_id: 'loose-file', role: 'editor' },
]);

describe('my role on a row', () => {
  it('is owner for my own rows, whatever the grants say', () => {
    expect(roleOf({ id: 'x', owner_id: me, ancestors: ['team'] }, me, grants)).toBe('owner');
  });

  it('comes from a grant on the row itself or on a folder above it', () => {
    expect(roleOf({ id: 'team', owner_id: 'ann', ancestors: [] }, me, grants)).toBe('viewer');
    expect(roleOf({ id: 'a', owner_id: 'ann', ancestors: ['root', 'team'] }, me, grants)).toBe(
      'viewer',
    );
  });

  it('takes the strongest grant: a deeper grant widens, never narrows', () => {
    const deep = { id: 'b', owner_id: 'ann', ancestors: ['team', 'team-drafts'] };
    expect(roleOf(deep, me, grants)).toBe('editor');
    expect(roleOf({ id: 'team-drafts', owner_id: 'ann', ancestors: ['team'] }, me, grants)).toBe(
      'editor',
    );
    expect(roleOf({ id: 'loose-file', owner_id: 'ann' }, me, grants)).toBe('editor');
  });

  it('is null without ownership or grant, and without knowing who I am', () => {
    expect(roleOf({ id: 'c', owner_id: 'ann', ancestors: ['elsewhere'] }, me, grants)).toBeNull();
    expect(roleOf({ id: 'c', owner_id: 'ann', ancestors: null }, me, grants)).toBeNull();
    expect(roleOf({ id: 'x', owner_id: me }, undefined, new Map())).toBeNull();
  });

  it('orders roles, and a selection allows what its weakest item allows', () => {
    expect(stronger('viewer', 'editor')).toBe('editor');
    expect(stronger(null, 'viewer')).toBe('viewer');
    expect(stronger('owner', null)).toBe('owner');
    expect(weakest(['owner', 'editor', 'owner'])).toBe('editor');
    expect(weakest(['owner', null])).toBeNull();
    expect(weakest([])).toBeNull();
    expect([canEdit('owner'), canEdit('editor'), canEdit('viewer'), canEdit(null)]).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });
});
