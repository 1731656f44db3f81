/**
 * The console API's wire types: the JSON that `/_console/api` answers (see api.ts). The
 * server's handlers are typed by them, and the console app imports them (types only) as
 * `@app/backend-server/console-api`, so a change here that the console does not follow
 * fails to compile. Types only: this module has no run-time content.
 */

export type { Mail, MailType } from '../mail/outbox';
export type { Sms, SmsType } from '../sms/outbox';

/** An error answer of the console API (4xx): `{ message }`. */
export interface ApiError {
  message: string;
}

/** `POST /login` with the console password: the console token. */
export interface LoginResponse {
  token: string;
}

/** A JSON object whose keys the console lists as they are. */
type Section = { readonly [key: string]: unknown };

/** The settings in force that the console shows (no secrets but the project's keys). */
export interface ConsoleSettings {
  database: 'pglite' | 'postgres';
  dataDir: string | null;
  storageDir: string;
  migrationsDir: string | null;
  seedFiles: string[];
  functionsDir: string | null;
  /** Auth settings; the SMTP URL without its password. */
  auth: Section & { siteUrl: string | null; smtpUrl: string | null };
  rest: Section;
  storage: Section;
  realtime: Section;
  functions: Section;
  /** Entries the live log keeps. */
  logCapacity: number;
}

/** `GET /session`: what the console needs to call the server, and its settings. */
export interface ConsoleSession {
  url: string;
  anonKey: string;
  serviceRoleKey: string;
  /** Schemas the REST API serves. */
  exposedSchemas: string[];
  settings: ConsoleSettings;
}

/** A table (or view) in the console's list. */
export interface TableSummary {
  schema: string;
  name: string;
  /** `table`, `view`, `materialized view`, `partitioned table`, `foreign table`. */
  kind: string;
  rls: boolean;
  /** The planner's row estimate (-1 when never analysed). */
  estimate: number;
}

/** `GET /tables`: every schema (with no table too) and every table, view and materialized view. */
export interface TableList {
  schemas: string[];
  tables: TableSummary[];
}

/** A column of a table. */
export interface ColumnInfo {
  name: string;
  /** The type as SQL writes it (`timestamp with time zone`, `text[]`, `character varying(20)`). */
  type: string;
  /** The type's name (`timestamptz`, `_text`, `varchar`, an enum's name). */
  udt: string;
  /** Postgres type category: B boolean, N numeric, S string, D date/time, U user (uuid, json…), A array, E enum. */
  category: string;
  nullable: boolean;
  default: string | null;
  /** `always`, `by default` or null. */
  identity: string | null;
  /** True for a generated (computed) column: it is never written. */
  generated: boolean;
  /** The labels of an enum column. */
  enumValues: string[] | null;
}

/** Columns, keys, indexes, constraints, RLS, policies and triggers of one table. */
export interface TableDetail extends TableSummary {
  forceRls: boolean;
  columns: ColumnInfo[];
  primaryKey: string[];
  indexes: { name: string; definition: string; primary: boolean; unique: boolean }[];
  constraints: { name: string; type: string; definition: string }[];
  policies: {
    name: string;
    command: string;
    permissive: boolean;
    roles: string[];
    using: string | null;
    check: string | null;
  }[];
  triggers: { name: string; definition: string; enabled: boolean }[];
}

/** `GET /tables/:schema/:table`: the table's detail, and whether the REST API serves it. */
export interface TableResponse extends TableDetail {
  exposed: boolean;
}

/** `POST /tables/:schema/:table/rls`: row level security as it now is. */
export interface RlsResponse {
  enabled: boolean;
}

/** `GET /tables/:schema/:table/rows`: a page of rows read as the superuser, values as text. */
export interface RowsPage {
  columns: string[];
  rows: Record<string, unknown>[];
  /** Rows in the whole table. */
  total: number;
}

/** The result of one statement. */
export interface SqlResult {
  /** The statement's first word, upper case (`SELECT`, `INSERT`, `CREATE`, …). */
  command: string;
  columns: string[];
  /** At most `MAX_ROWS` (sql.ts) rows, each an array in column order. */
  rows: unknown[][];
  /** Rows returned or affected. */
  rowCount: number;
  truncated: boolean;
}

/** A failed statement, with the place in the whole script where Postgres found the error. */
export interface SqlError {
  message: string;
  code: string | null;
  detail: string | null;
  hint: string | null;
  /** 1-based character position in the script, when Postgres gave one. */
  position: number | null;
  /** 1-based line and column of `position`. */
  line: number | null;
  column: number | null;
  /** Index of the statement that failed. */
  statement: number;
}

/** `POST /sql`, 200: the results of every statement. */
export interface SqlResponse {
  results: SqlResult[];
  durationMs: number;
}

/** `POST /sql`, 400 when a statement failed (the script was rolled back). */
export interface SqlFailure {
  error: SqlError;
  durationMs: number;
}

/** `GET /auth/users/:id/sessions`: one of a user's sessions, times as Postgres writes them. */
export interface AuthSessionRow {
  id: string;
  created_at: string;
  updated_at: string | null;
  refreshed_at: string | null;
  user_agent: string | null;
  ip: string | null;
  aal: string | null;
  not_after: string | null;
}

/** `GET /realtime`: a snapshot of the realtime service: sockets, channels and presence. */
export interface RealtimeSnapshot {
  connections: {
    id: string;
    role: string | null;
    user: string | null;
    connectedAt: number;
    channels: string[];
  }[];
  channels: {
    topic: string;
    private: boolean;
    members: number;
    presence: Record<string, Record<string, unknown>[]>;
  }[];
}

/** What produced a log entry. */
export type LogKind = 'request' | 'function' | 'realtime';

/** One entry of the server's live log (what the console's Logs screen shows). */
export interface LogEntry {
  /** Increasing number of the entry in this server's life (1, 2, …). */
  seq: number;
  /** Epoch milliseconds. */
  time: number;
  kind: LogKind;
  /** Requests: HTTP method. */
  method?: string;
  /** Requests: path (no query string). */
  path?: string;
  /** Requests: response status. */
  status?: number;
  /** Requests: milliseconds until the response headers. */
  durationMs?: number;
  /** Requests, realtime: the role of the caller's token (`anon`, `authenticated`, …). */
  role?: string | null;
  /** Requests, realtime: the caller's user id (`sub`), when signed in. */
  user?: string | null;
  /** Functions: the function's name; realtime: the channel topic. */
  source?: string;
  /** Functions: `out` or `err`; realtime: `connect`, `disconnect`, `join`, `leave`. */
  level?: string;
  /** Functions and realtime: the text. */
  message?: string;
  /** On PostgreSQL: the replica that recorded it (`seq` is then the cluster's number). */
  replica?: string;
}

/** `GET /logs?after=n`: the kept entries newer than `n`. */
export interface LogsResponse {
  entries: LogEntry[];
  /** Number of the newest entry (0 before the first). */
  lastSeq: number;
  /** Entries the server keeps. */
  capacity: number;
}

/**
 * `GET /logs/stream?after=n`: newline-delimited JSON, one line per batch of new entries
 * (`[]` now and then to keep the stream open).
 */
export type LogBatch = LogEntry[];

/** A pg_cron job with its last run. Times are ISO 8601 texts. */
export interface CronJob {
  jobid: string;
  jobname: string | null;
  schedule: string;
  command: string;
  database: string;
  username: string;
  active: boolean;
  /** The newest run: `running`, `succeeded`, `failed` (pg_cron's statuses). */
  lastRun: { status: string | null; start_time: string | null; end_time: string | null } | null;
  /** When the scheduler runs it next (UTC schedule); null when paused or `@reboot`. */
  nextRun: string | null;
}

/** `GET /cron`: pg_cron's jobs, or `installed: false` when the extension is not created. */
export interface CronResponse {
  installed: boolean;
  jobs: CronJob[];
}

/** `GET /cron/jobs/:id/runs`: a run of a job from `cron.job_run_details`, newest first. */
export interface CronRun {
  runid: string;
  status: string | null;
  return_message: string | null;
  start_time: string | null;
  end_time: string | null;
  durationMs: number | null;
}

/** `POST /cron/jobs/:id/run`: the run that was made (it has finished). */
export interface CronRunResponse {
  run: CronRun;
}

/** A pgmq queue with its metrics. */
export interface QueueSummary {
  name: string;
  unlogged: boolean;
  created_at: string;
  /** Messages in the queue (visible or not). */
  length: number;
  /** Seconds since the oldest / newest message in the queue was sent; null when empty. */
  oldestAgeSec: number | null;
  newestAgeSec: number | null;
  /** Messages ever sent to it. */
  totalMessages: number;
}

/** `GET /queues`: pgmq's queues, or `installed: false` when the extension is not created. */
export interface QueuesResponse {
  installed: boolean;
  queues: QueueSummary[];
}

/** A message of a queue (or of its archive, with `archived_at`). Times are ISO 8601 texts. */
export interface QueueMessage {
  msg_id: string;
  read_ct: number;
  enqueued_at: string;
  /** Until when it is invisible to readers (its visibility timeout). */
  vt: string;
  archived_at?: string;
  message: unknown;
}

/** `GET /queues/:name/messages[?archive=1]`: the oldest messages (at most 100) and the count. */
export interface QueueMessages {
  messages: QueueMessage[];
  total: number;
}

/** `POST /queues/:name/send`: the new message's id. */
export interface QueueSendResponse {
  msg_id: string;
}

/**
 * `GET /s3-keys`: the project's S3 access keys made in the console or the CLI (never their
 * secrets), oldest first. Times are ISO 8601 texts.
 */
export interface S3AccessKey {
  /** The access key id (32 hex digits). */
  id: string;
  description: string;
  created_at: string;
}

/** `POST /s3-keys` `{ description? }` (201): the new key with its secret, answered once. */
export interface NewS3AccessKey extends S3AccessKey {
  secret: string;
}
