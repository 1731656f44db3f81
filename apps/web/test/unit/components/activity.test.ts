import { beforeAll, describe, expect, it } from 'vitest';
import { describeActivity, timeAgo } from '../../../src/components/ActivityPanel';
import { loadLocale } from '../../../src/i18n';
import type { ActivityRow } from '../../../src/lib/activity-api';

beforeAll(() => loadLocale('en'));

const ME = 'me';
const row = (over: Partial<ActivityRow>): ActivityRow => ({
  id: 1,
  item_kind: 'file',
  item_id: 'f',
  owner_id: ME,
  actor_id: 'ed',
  action: 'uploaded',
  details: {},
  at: '2026-11-27T10:00:00Z',
  actor_name: 'Ed',
  item_name: 'plan.txt',
  from_name: null,
  to_name: null,
  ...over,
});

describe('activity entries in words', () => {
  it('names the item as it was then, or as it is now', () => {
    expect(describeActivity(row({ details: { name: 'draft.txt' } }), ME)).toBe(
      'Ed uploaded “draft.txt”',
    );
    expect(
      describeActivity(row({ action: 'created', item_kind: 'folder', item_name: 'Team' }), ME),
    ).toBe('Ed created the folder “Team”');
    expect(describeActivity(row({ action: 'renamed', details: { from: 'a', to: 'b' } }), ME)).toBe(
      'Ed renamed “a” to “b”',
    );
    expect(describeActivity(row({ action: 'trashed', details: { name: 'x.txt' } }), ME)).toBe(
      'Ed moved “x.txt” to the Trash',
    );
  });

  it('says where a move went, as far as the reader may see', () => {
    const moved = row({ action: 'moved', details: { from: 'a', to: null }, from_name: 'Team' });
    expect(describeActivity(moved, ME)).toBe('Ed moved “plan.txt” from “Team” to My files');
    expect(describeActivity(moved, 'someone')).toBe(
      'Ed moved “plan.txt” from “Team” to the owner’s files',
    );
    expect(
      describeActivity(
        row({ action: 'moved', details: { from: 'a', to: 'b' }, from_name: 'Team' }),
        ME,
      ),
    ).toBe('Ed moved “plan.txt” from “Team” to a folder you cannot see');
  });

  it('tells sharing, role changes, invitations, removals and leaving apart', () => {
    const shared = (details: Record<string, unknown>) =>
      describeActivity(row({ action: 'shared', item_name: 'Team', details }), ME);
    expect(shared({ email: 'ed@x.org', user: 'ed', role: 'editor', pending: false })).toBe(
      'Ed shared “Team” with ed@x.org as Editor',
    );
    expect(shared({ email: 'me@x.org', user: ME, role: 'viewer', pending: false })).toBe(
      'Ed shared “Team” with you as Viewer',
    );
    expect(shared({ email: 'new@x.org', user: null, role: 'viewer', pending: true })).toBe(
      'Ed invited new@x.org to “Team” as Viewer',
    );
    expect(shared({ email: 'ed@x.org', user: 'ed', role: 'editor', previous_role: 'viewer' })).toBe(
      'Ed made ed@x.org an Editor of “Team”',
    );
    const unshared = (actor: string, user: string) =>
      describeActivity(
        row({
          action: 'unshared',
          actor_id: actor,
          actor_name: actor === 'olga' ? 'Olga' : 'Ed',
          item_name: 'Team',
          details: { email: 'ed@x.org', user },
        }),
        ME,
      );
    expect(unshared(ME, 'ed')).toBe('You removed ed@x.org’s access to “Team”');
    expect(unshared('ed', 'ed')).toBe('Ed left “Team”');
    expect(unshared('olga', ME)).toBe('Olga removed your access to “Team”');
  });

  it('says it in Arabic, the actor within the sentence', async () => {
    await loadLocale('ar');
    try {
      expect(describeActivity(row({ details: { name: 'a.txt' } }), ME)).toBe('رفع Ed «a.txt»');
      expect(describeActivity(row({ actor_id: ME, details: { name: 'a.txt' } }), ME)).toBe(
        'رفعتَ «a.txt»',
      );
    } finally {
      await loadLocale('en');
    }
  });

  it('says how long ago, and the date beyond a month', () => {
    const now = Date.parse('2026-11-27T12:00:00Z');
    expect(timeAgo('2026-11-27T11:59:50Z', now)).toBe('just now');
    expect(timeAgo('2026-11-27T11:55:00Z', now)).toMatch(/5/);
    expect(timeAgo('2026-11-27T09:00:00Z', now)).toMatch(/3/);
    expect(timeAgo('2026-09-01T12:00:00Z', now)).toMatch(/2026/);
  });
});
