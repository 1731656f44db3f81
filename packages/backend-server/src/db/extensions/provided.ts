/**
 * Extensions the server provides itself, for what hosted projects have and the database
 * engine does not ship (see ./README.md): each is an ordinary extension, a control file and
 * one install script, written where the engine reads extensions from.
 */
import { PG_CRON } from './pg-cron';
import { PG_NET } from './pg-net';
import { PGMQ } from './pgmq';
import { SUPABASE_VAULT } from './vault';

export interface ProvidedExtension {
  name: string;
  version: string;
  comment: string;
  /**
   * The schema the extension creates and lives in (not relocatable). Without one, the
   * extension is recorded in the schema `create extension … with schema` names and its
   * script makes its own schema (as pg_net does).
   */
  schema?: string;
  /** The install script: SQL as `create extension` runs it. */
  script: string;
}

/** First line of every control file the server writes: it only ever replaces its own. */
export const PROVIDED_MARK = '# provided by @app/backend-server';

export const PROVIDED_EXTENSIONS: readonly ProvidedExtension[] = [
  PGMQ,
  PG_CRON,
  PG_NET,
  SUPABASE_VAULT,
];

/** The files of one extension, named as in a `share/extension` directory. */
export function extensionFiles(ext: ProvidedExtension): { name: string; text: string }[] {
  const control = [
    PROVIDED_MARK,
    `comment = '${ext.comment.replace(/'/g, "''")}'`,
    `default_version = '${ext.version}'`,
    ...(ext.schema ? [`schema = '${ext.schema}'`] : []),
    'relocatable = false',
    'superuser = false',
    '',
  ].join('\n');
  return [
    { name: `${ext.name}.control`, text: control },
    { name: `${ext.name}--${ext.version}.sql`, text: ext.script },
  ];
}
