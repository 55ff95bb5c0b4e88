import { BeebotError } from '../../errors.js';
import { isPostgresUrl, showUrl } from '../pg/url.js';
import type { CopySource, CopyTarget } from './endpoint.js';
import { copyLayout } from './layout.js';
import { sqliteSource, sqliteTarget } from './sqlite-end.js';

export interface CopySummary {
  from: string;
  to: string;
  tables: { table: string; rows: number }[];
  rows: number;
  seconds: number;
}

// pg-end.ts loads the pg driver (about 1 MB of modules): only a copy from or to PostgreSQL needs it,
// so every other command starts without it.
const openSource = async (from: string): Promise<CopySource> =>
  isPostgresUrl(from) ? (await import('./pg-end.js')).pgSource(from) : sqliteSource(from);
const openTarget = async (to: string): Promise<CopyTarget> =>
  isPostgresUrl(to) ? (await import('./pg-end.js')).pgTarget(to) : sqliteTarget(to);

/**
 * `beebot db copy`: the whole crawl, every table and row with its ids, from one store to another
 * (SQLite file or PostgreSQL URL either way). The source is read in one snapshot; the target must
 * be empty and is written in one transaction, so a failure leaves it as it was.
 */
export async function copyDatabase(from: string, to: string, opts: { batchRows?: number } = {}): Promise<CopySummary> {
  const started = performance.now();
  const layout = copyLayout();
  const source = await openSource(from);
  let target: CopyTarget;
  try {
    target = await openTarget(to);
  } catch (err) {
    await source.close().catch(() => {});
    throw err;
  }
  const tables: CopySummary['tables'] = [];
  let current = '';
  try {
    for (const table of layout) {
      current = table.name;
      let rows = 0;
      for await (const batch of source.rows(table, Math.min(opts.batchRows ?? Infinity, target.batchRows(table)))) {
        await target.insert(table, batch);
        rows += batch.length;
      }
      tables.push({ table: table.name, rows });
    }
    current = '';
    await target.commit();
  } catch (err) {
    await target.abort().catch(() => {});
    await source.close().catch(() => {});
    const why = err instanceof BeebotError ? err.message : (err as Error)?.message ?? String(err);
    throw new BeebotError(`copy to ${showUrl(to)} failed${current ? ` at table ${current}` : ''}: ${why.split('\n')[0]}; nothing was written`);
  }
  await source.close();
  return { from: showUrl(from), to: showUrl(to), tables, rows: tables.reduce((s, t) => s + t.rows, 0), seconds: (performance.now() - started) / 1000 };
}
