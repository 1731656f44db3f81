import type { Database } from '../db/index';
import { exceptionText } from './filters';
import type { Outlet } from './hub';
import { encode } from './protocol';
import type { ChangeBinding, Filter } from './subscription';

/** A channel's postgres_changes subscriptions. */
export interface ChangeSubscriber {
  outlet: Outlet;
  topic: string;
  /** Legacy topic form (no `config`): the event is the change type, the payload bare data. */
  legacy: boolean;
  bindings: ChangeBinding[];
  /** Current role and claims (they change with `access_token` pushes). */
  auth(): { role: string; claims: Record<string, unknown> };
}

/** A notification of the capture trigger. */
interface Notice {
  n: number;
  s: string;
  t: string;
  o: 'INSERT' | 'UPDATE' | 'DELETE';
  ts: string;
  k?: Record<string, unknown> | null;
  ok?: Record<string, unknown> | null;
  p: boolean;
  c?: boolean;
  /** The old row (REPLICA IDENTITY FULL), when the notification had room for it. */
  or?: Record<string, unknown> | null;
}

interface Target {
  sub: ChangeSubscriber;
  binding: ChangeBinding;
  check: number;
}

interface CheckRow {
  idx: number;
  visible: boolean;
  record: Record<string, unknown> | null;
  columns: { name: string; type: string }[] | null;
  rls: boolean;
}

const MAX_RECORD_BYTES = 1024 * 1024;
const CHECK_SQL = `select idx, visible, record, columns, rls from realtime.check_change(
  to_regclass(format('%I.%I', $1::text, $2::text)), $3, $4::text::jsonb, $5::text::jsonb,
  $6::text::jsonb)`;

const quoteTable = (schema: string, table: string) => `${schema}.${table}`;

/** The binding as the hosted service prints it in its error texts (Elixir terms). */
function paramsToLog(b: ChangeBinding): string {
  const str = (v: string) => JSON.stringify(v);
  const filters = `[${b.filters.map(([c, op, v, not]) => `{${[c, op, v].map(str).join(', ')}, ${not}}`).join(', ')}]`;
  const select = b.select ? `[${b.select.map(str).join(', ')}]` : 'nil';
  return `event: ${b.event}, schema: ${b.schema}, table: ${b.table}, filters: ${filters}, select: ${select}`;
}

/**
 * postgres_changes delivery: listens to the capture trigger's notifications and, per change,
 * asks the database (one call for all subscribers) which subscribers may see the row and
 * what of it, then pushes the hosted payload to each.
 */
export class ChangeFeed {
  private readonly subscribers = new Map<string, Set<ChangeSubscriber>>();
  private readonly entitiesOf = new Map<ChangeBinding, Set<string>>();
  private queue: Promise<void> = Promise.resolve();
  private unlisten: (() => Promise<void>) | null = null;
  private pruner: NodeJS.Timeout | null = null;

  /**
   * `replica`: this server's id when several replicas share the database (cluster.ts): a
   * captured row is then deleted only once every live replica has read it.
   */
  constructor(
    private readonly db: Database,
    private readonly log: (message: string) => void,
    private readonly replica?: string,
  ) {}

  /** Starts listening; adds capture triggers the publication's tables lack. */
  async start(): Promise<void> {
    await this.db.query('select realtime.sync_capture_triggers()');
    await this.prune();
    // With several replicas a row waits for every live one: one that never came for it
    // (it started as the row was written) must not keep it for ever.
    if (this.replica) {
      this.pruner = setInterval(() => void this.prune(), 60_000);
      this.pruner.unref();
    }
    this.unlisten = await this.db.listen('realtime_changes', (text) => {
      this.queue = this.queue
        .then(() => this.deliver(JSON.parse(text) as Notice))
        .catch((error) => this.log(`postgres_changes delivery failed: ${String(error)}`));
    });
  }

  async stop(): Promise<void> {
    if (this.pruner) clearInterval(this.pruner);
    this.pruner = null;
    const unlisten = this.unlisten;
    this.unlisten = null;
    await unlisten?.().catch(() => {});
    await this.queue;
  }

  /**
   * Resolves each binding to the publication's tables and checks its filters. Resolves to
   * null when subscribed, or the error text the `system` push carries.
   */
  async subscribe(sub: ChangeSubscriber): Promise<string | null> {
    // Tables added to the publication outside a migration get their trigger here.
    await this.db
      .query('select realtime.sync_capture_triggers()')
      .catch((error) => this.log(`capture trigger sync failed: ${String(error)}`));
    const resolved = new Map<ChangeBinding, Set<string>>();
    for (const binding of sub.bindings) {
      const { rows } = await this.db.query<{ schemaname: string; tablename: string }>(
        `select schemaname, tablename from pg_publication_tables
         where pubname = 'supabase_realtime'
           and ($1 = '*' or schemaname = $1) and ($2 = '*' or tablename = $2)`,
        [binding.schema, binding.table],
      );
      if (rows.length === 0) {
        return `Unable to subscribe to changes with given parameters. Please check Realtime is enabled for the given connect parameters: [${paramsToLog(binding)}]`;
      }
      for (const row of rows) {
        const problem = await this.checkFilters(
          row.schemaname,
          row.tablename,
          sub.auth().role,
          binding.filters,
        );
        if (problem) {
          return `Unable to subscribe to changes with given parameters. An exception happened so please check your connect parameters: [${paramsToLog(binding)}]. Exception: ${problem}`;
        }
      }
      resolved.set(binding, new Set(rows.map((r) => quoteTable(r.schemaname, r.tablename))));
    }
    for (const [binding, entities] of resolved) {
      this.entitiesOf.set(binding, entities);
      for (const entity of entities) {
        let set = this.subscribers.get(entity);
        if (!set) {
          set = new Set();
          this.subscribers.set(entity, set);
        }
        set.add(sub);
      }
    }
    return null;
  }

  unsubscribe(sub: ChangeSubscriber): void {
    for (const binding of sub.bindings) {
      for (const entity of this.entitiesOf.get(binding) ?? []) {
        const set = this.subscribers.get(entity);
        set?.delete(sub);
        if (set?.size === 0) this.subscribers.delete(entity);
      }
      this.entitiesOf.delete(binding);
    }
  }

  /** The hosted checks of `realtime.check_filters()`; the exception text, or null. */
  private async checkFilters(schema: string, table: string, role: string, filters: Filter[]) {
    if (filters.length === 0) return null;
    try {
      await this.db.query(
        `select realtime.check_filters(to_regclass(format('%I.%I', $1::text, $2::text)), $3,
           $4::text::jsonb)`,
        [schema, table, role, JSON.stringify(filters)],
      );
      return null;
    } catch (error) {
      return exceptionText(error);
    }
  }

  private async deliver(notice: Notice): Promise<void> {
    let keys = notice.k ?? null;
    let oldKeys = notice.ok ?? null;
    let oldRecord: Record<string, unknown> | null = notice.or ?? null;
    if (notice.c) {
      const rows = await this.takeCaptured(notice.n);
      keys = rows[0]?.keys ?? null;
      oldKeys = rows[0]?.old_keys ?? null;
      oldRecord = rows[0]?.old_record ?? null;
    }
    const entity = quoteTable(notice.s, notice.t);
    const subs = this.subscribers.get(entity);
    if (!subs || subs.size === 0) return;

    // Which bindings want this change, and one database check per distinct (role, claims, filters).
    const checks: { role: string; claims: string; filters: Filter[] }[] = [];
    const checkIndex = new Map<string, number>();
    const targets: Target[] = [];
    for (const sub of subs) {
      const { role, claims } = sub.auth();
      const claimsText = JSON.stringify(claims);
      for (const binding of sub.bindings) {
        if (!this.entitiesOf.get(binding)?.has(entity)) continue;
        if (binding.event !== '*' && binding.event !== notice.o) continue;
        const key = `${role}\u0000${claimsText}\u0000${JSON.stringify(binding.filters)}`;
        let index = checkIndex.get(key);
        if (index === undefined) {
          index = checks.length;
          checks.push({ role, claims: claimsText, filters: binding.filters });
          checkIndex.set(key, index);
        }
        targets.push({ sub, binding, check: index });
      }
    }
    if (targets.length === 0) return;
    const base = { schema: notice.s, table: notice.t, type: notice.o };
    if (!notice.p && notice.o !== 'DELETE') {
      this.push(targets, () => ({ ...base, errors: ['Error 400: Bad Request, no primary key'] }));
      return;
    }
    const results = await this.runChecks(notice, keys, oldRecord ?? oldKeys, checks);
    const pkColumns = Object.keys(keys ?? oldKeys ?? {});
    // A role that may not read the primary key is told so (hosted: "Error 401").
    const unauthorized = (row: CheckRow) =>
      notice.o !== 'DELETE' &&
      !pkColumns.every((c) => (row.columns ?? []).some((col) => col.name === c));
    const delivered = targets.filter((t) => {
      const row = results[t.check];
      return row !== undefined && (row.visible || unauthorized(row));
    });
    this.push(delivered, (t) => {
      const row = results[t.check] as CheckRow;
      const columns = row.columns ?? [];
      const allowed = new Set(columns.map((c) => c.name));
      if (unauthorized(row)) return { ...base, errors: ['Error 401: Unauthorized'] };
      const keep = (name: string) =>
        allowed.has(name) &&
        (!t.binding.select || t.binding.select.includes(name) || pkColumns.includes(name));
      const pick = (rec: Record<string, unknown> | null, onlyPk = false) =>
        Object.fromEntries(
          Object.entries(rec ?? {}).filter(
            ([name]) => keep(name) && (!onlyPk || pkColumns.includes(name)),
          ),
        );
      const data: Record<string, unknown> = {
        ...base,
        commit_timestamp: notice.ts,
        columns: columns.filter((c) => keep(c.name)),
      };
      if (notice.o !== 'DELETE') data.record = pick(row.record);
      if (notice.o === 'UPDATE') data.old_record = pick(oldRecord ?? oldKeys);
      if (notice.o === 'DELETE') data.old_record = pick(oldRecord ?? oldKeys, row.rls);
      data.errors = null;
      if (JSON.stringify(data).length > MAX_RECORD_BYTES) {
        for (const field of ['record', 'old_record'] as const) {
          const rec = data[field] as Record<string, unknown> | undefined;
          if (rec) {
            data[field] = Object.fromEntries(
              Object.entries(rec).filter(([, v]) => (JSON.stringify(v) ?? '').length <= 64),
            );
          }
        }
        data.errors = ['Error 413: Payload Too Large'];
      }
      return data;
    });
  }

  /** Deletes captured rows older than 5 minutes (nobody is coming for them). */
  private prune(): Promise<unknown> {
    return this.db
      .query("delete from realtime.captured_rows where created_at < now() - interval '5 minutes'")
      .catch((error) => this.log(`pruning realtime.captured_rows failed: ${String(error)}`));
  }

  /**
   * A captured row: deleted as it is read by the only replica; with several, marked read by
   * this one and deleted once every replica with a fresh heartbeat has read it (rows nobody
   * comes for go after 5 minutes).
   */
  private async takeCaptured(id: number) {
    type Captured = {
      keys: Record<string, unknown> | null;
      old_keys: Record<string, unknown> | null;
      old_record: Record<string, unknown> | null;
    };
    if (!this.replica) {
      const { rows } = await this.db.query<Captured>(
        'delete from realtime.captured_rows where id = $1 returning keys, old_keys, old_record',
        [id],
      );
      return rows;
    }
    const { rows } = await this.db.query<Captured>(
      `update realtime.captured_rows set read_by = array_append(read_by, $2)
        where id = $1 returning keys, old_keys, old_record`,
      [id, this.replica],
    );
    await this.db.query(
      `delete from realtime.captured_rows c
        where c.id = $1
          and not exists (select 1 from realtime.replicas r
                           where r.seen_at > now() - interval '10 seconds'
                             and r.id <> all (c.read_by))`,
      [id],
    );
    return rows;
  }

  /** One call for every check; if it fails (e.g. a policy raised), each check on its own. */
  private async runChecks(
    notice: Notice,
    keys: Record<string, unknown> | null,
    old: Record<string, unknown> | null,
    checks: { role: string; claims: string; filters: Filter[] }[],
  ): Promise<CheckRow[]> {
    // Sorted by role, then filters: one prepared statement serves each run of equal ones.
    const sortKey = (i: number) => `${checks[i]?.role}\u0000${JSON.stringify(checks[i]?.filters)}`;
    const order = checks
      .map((_, i) => i)
      .sort((a, b) => {
        const ka = sortKey(a);
        const kb = sortKey(b);
        return ka < kb ? -1 : ka > kb ? 1 : a - b;
      });
    const run = async (indexes: number[]) => {
      const { rows } = await this.db.query<CheckRow>(CHECK_SQL, [
        notice.s,
        notice.t,
        notice.o,
        JSON.stringify(keys),
        JSON.stringify(old),
        JSON.stringify(indexes.map((i) => checks[i])),
      ]);
      let columns: CheckRow['columns'] = null;
      return rows.map((row) => {
        columns = row.columns ?? columns;
        return { ...row, columns };
      });
    };
    const results: CheckRow[] = [];
    try {
      const rows = await run(order);
      rows.forEach((row, i) => {
        results[order[i] as number] = row;
      });
    } catch {
      for (const i of order) {
        try {
          const [row] = await run([i]);
          if (row) results[i] = row;
        } catch (error) {
          this.log(`postgres_changes check failed for one subscriber: ${String(error)}`);
        }
      }
    }
    return results;
  }

  /** Sends one message per channel with the ids of its bindings that see the change. */
  private push(targets: Target[], data: (t: Target) => Record<string, unknown>): void {
    const bySub = new Map<ChangeSubscriber, Target[]>();
    for (const t of targets) {
      const list = bySub.get(t.sub) ?? [];
      list.push(t);
      bySub.set(t.sub, list);
    }
    for (const [sub, list] of bySub) {
      // Bindings with different column selections get separate messages.
      const groups = new Map<string, Target[]>();
      for (const t of list) {
        const key = JSON.stringify(t.binding.select);
        groups.set(key, [...(groups.get(key) ?? []), t]);
      }
      for (const group of groups.values()) {
        const first = group[0] as Target;
        const payload = data(first);
        const vsn = sub.outlet.vsn;
        if (sub.legacy) {
          sub.outlet.send(encode(vsn, null, null, sub.topic, String(payload.type), payload));
        } else {
          const ids = [...new Set(group.map((t) => t.binding.id))];
          sub.outlet.send(
            encode(vsn, null, null, sub.topic, 'postgres_changes', { ids, data: payload }),
          );
        }
      }
    }
  }
}
