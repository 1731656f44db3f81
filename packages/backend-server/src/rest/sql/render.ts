/**
 * One level's SQL as text: its SELECT, and the count query of the same rows. Apart from
 * read.ts, which builds the levels, so that embed.ts (which read.ts calls) renders an
 * embedded level without importing read.ts back.
 */
import type { LevelSql } from './read';

/** `SELECT … FROM … [joins] [WHERE] [GROUP BY] [ORDER BY] [LIMIT] [OFFSET]` */
export function renderLevel(
  from: string,
  level: LevelSql,
  limit: number | null,
  offset: number | null,
): string {
  let sql = `SELECT ${level.select.join(', ')} FROM ${from}`;
  if (level.joins.length) sql += ` ${level.joins.join(' ')}`;
  if (level.where.length) sql += ` WHERE ${level.where.join(' AND ')}`;
  if (level.groupBy.length) sql += ` GROUP BY ${level.groupBy.join(', ')}`;
  if (level.orderBy.length) sql += ` ORDER BY ${level.orderBy.join(', ')}`;
  if (limit !== null) sql += ` LIMIT ${limit}`;
  if (offset !== null && offset > 0) sql += ` OFFSET ${offset}`;
  return sql;
}

/** Count query of a level: same FROM, joins and WHERE, no select list, order or paging. */
export function renderCount(from: string, level: LevelSql): string {
  let sql = `SELECT 1 FROM ${from}`;
  if (level.joins.length) sql += ` ${level.joins.join(' ')}`;
  if (level.where.length) sql += ` WHERE ${level.where.join(' AND ')}`;
  if (level.groupBy.length) sql += ` GROUP BY ${level.groupBy.join(', ')}`;
  return `SELECT count(*) FROM (${sql}) AS pgrst_count`;
}
