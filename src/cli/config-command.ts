import { Command } from 'commander';
import { UsageError } from '../errors.js';
import { formatSetting, isSettingKey, parseSetting, readSettings, settingKeys, writeSetting } from '../store/settings.js';
import { pullCount } from '../store/status.js';
import { indexCoverage } from '../store/search.js';
import { grouped, htmlOfFetched } from '../markup/counted.js';
import { isTty, printJson, withDb, withReadDb } from './context.js';
import { formatTable } from './table.js';

// Changing these after pages were fetched would silently split one site's links in two.
const FROZEN_AFTER_CRAWL = new Set(['scope', 'normalize', 'session-ids']);

export function configCommand(): Command {
  const config = new Command('config').description(`crawler settings: ${settingKeys.join(', ')}`);

  config
    .command('get [key]')
    .description('print one setting, or all of them')
    .option('--json', 'print JSON')
    .action(async (key: string | undefined, opts: { json?: boolean }, cmd: Command) => {
      if (key !== undefined && !isSettingKey(key)) throw new UsageError(`unknown setting '${key}' (known: ${settingKeys.join(', ')})`);
      await withReadDb(cmd, (db) => {
        const s = readSettings(db);
        if (key !== undefined) {
          process.stdout.write(opts.json ? JSON.stringify(s[key]) + '\n' : formatSetting(s[key]) + '\n');
        } else if (opts.json) {
          printJson(s);
        } else {
          process.stdout.write(formatTable(['key', 'value'], settingKeys.map((k) => [k, formatSetting(s[k])]), isTty()));
        }
      });
    });

  config
    .command('set <key> <value>')
    .description("change a setting ('budget none' removes the budget)")
    .action(async (key: string, value: string, _opts: unknown, cmd: Command) => {
      if (!isSettingKey(key)) throw new UsageError(`unknown setting '${key}' (known: ${settingKeys.join(', ')})`);
      const parsed = parseSetting(key, value);
      await withDb(cmd, (db) => {
        const fetched = pullCount(db);
        if (FROZEN_AFTER_CRAWL.has(key) && fetched > 0 && readSettings(db)[key] !== parsed) {
          throw new UsageError(`${key} cannot change after the crawl has started (${fetched} pages fetched); use a new database`);
        }
        const before = formatSetting(readSettings(db)[key]);
        writeSetting(db, key, parsed);
        const now = formatSetting(readSettings(db)[key]);
        process.stdout.write(`${key} = ${now}${now === before ? ' (unchanged)' : ` (was ${before})`}\n`);
        const cover = key === 'index-text' && now === 'yes' && now !== before ? indexCoverage(db) : null;
        const unindexed = cover ? cover.html - cover.indexed : 0;
        if (cover && unindexed > 0) {
          // beebot keeps no page's text once analysed: nothing to index the pages before from.
          const which = unindexed === cover.html ? 'the' : `${grouped(unindexed)} of the`;
          process.stderr.write(
            `${which} ${htmlOfFetched(cover.html, cover.fetched, 'stay unindexed', ['beebot keeps no page text to index them from'])}; ` +
              'HTML pages fetched from now on are indexed. To search them all, crawl again into a new database with index-text yes\n',
          );
        }
      });
    });
  return config;
}
