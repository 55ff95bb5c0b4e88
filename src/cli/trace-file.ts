import { existsSync, readFileSync } from 'node:fs';
import { isPostgresUrl } from '../db/pg/url.js';
import { gunzipSync } from 'node:zlib';
import type { TraceSite } from '../schedule/sites/compare.js';
import type { RewardMode } from '../schedule/sites/reward.js';
import { BeebotError } from '../errors.js';
import { openDb } from '../db/db.js';
import { readTrace } from '../store/trace.js';

/**
 * The sites of a trace, as `simulate` replays them: a trace file from `beebot trace export`
 * (.json, or .json.gz like the committed real-web traces) or a beebot database (a SQLite file or a
 * postgres:// URL). `reward` picks which sequences to replay; without it, `rewards` (the mode the
 * crawl ran with).
 */
export function loadTrace(file: string, reward?: RewardMode): TraceSite[] {
  if (!isPostgresUrl(file) && !existsSync(file)) throw new BeebotError(`no such file: ${file}`);
  if (/\.json(\.gz)?$/i.test(file)) {
    let data: { sites?: Record<string, unknown>[] };
    try {
      const bytes = readFileSync(file);
      data = JSON.parse((/\.gz$/i.test(file) ? gunzipSync(bytes) : bytes).toString('utf8'));
    } catch {
      throw new BeebotError(`${file} is not valid JSON${/\.gz$/i.test(file) ? ' (gzip)' : ''}`);
    }
    const sites = data.sites;
    const counts = (a: unknown) => Array.isArray(a) && a.every((r: unknown) => Number.isInteger(r) && (r as number) >= 0);
    const want = reward ?? 'rewards';
    if (!Array.isArray(sites) || !sites.every((s) => counts(s?.[want]))) {
      if (reward !== undefined && Array.isArray(sites) && sites.every((s) => counts(s?.rewards))) {
        throw new BeebotError(`${file} has no '${reward}' rewards: it was exported by an older beebot`);
      }
      throw new BeebotError(`${file} is not a trace: expected { "sites": [{ "name", "group", "${want}": [counts] }] }`);
    }
    return sites.map((s) => ({ name: String(s.name ?? ''), group: typeof s.group === 'string' ? s.group : null, rewards: s[want] as number[] }));
  }
  const db = openDb(file, { readonly: true });
  try {
    return readTrace(db).sites.map((s) => ({ name: s.name, group: s.group, rewards: reward !== undefined ? s[reward] : s.rewards }));
  } finally {
    db.close();
  }
}
