// Seeds as docs/commands.md promises: only http(s) URLs with a real host pass, a file is a URL list or a
// table with a header (its delimiter sniffed from that header), and a bad file adds nothing.
import Database from 'better-sqlite3';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { beebot, tempDir } from '../helpers/cli.js';

let tmp: ReturnType<typeof tempDir>;
let n = 0;
const newDb = () => join(tmp.dir, `db-${++n}.db`);
const file = (name: string, text: string) => {
  const f = join(tmp.dir, name);
  writeFileSync(f, text);
  return f;
};
const sites = (db: string) => {
  if (!existsSync(db)) return []; // a refused import may not open the database at all
  const d = new Database(db, { readonly: true });
  try {
    return d.prepare('SELECT url, name, short, grp FROM sites ORDER BY id').all() as { url: string; name: string | null; short: string | null; grp: string | null }[];
  } finally {
    d.close();
  }
};

beforeAll(() => {
  tmp = tempDir();
});
afterAll(() => tmp?.cleanup());

describe('seeds add', () => {
  it.each(['ht!tp://bad url', 'https://a.ru/ # comment', 'http://exa mple.org/', 'https://ex_ample!.org/', 'http:example.org', 'url', 'https://-bad.org/'])(
    'refuses %j with exit 2, one line, nothing stored',
    async (bad) => {
      const db = newDb();
      await beebot(['seeds', 'add', 'example.org'], { db });
      const r = await beebot(['seeds', 'add', bad], { db });
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^beebot: not a usable http\(s\) URL/);
      expect(sites(db)).toHaveLength(1);
    },
  );

  it('takes an IDN (punycoded), an IP address, localhost and an explicit single-label host', async () => {
    const db = newDb();
    for (const ok of ['спбгу.рф', 'http://127.0.0.1:8080/', 'localhost:3000', 'http://intranet/', 'http://[::1]/'])
      expect((await beebot(['seeds', 'add', ok], { db })).code, ok).toBe(0);
    expect(sites(db).map((s) => s.url)).toEqual([
      'https://xn--90ae8ahn.xn--p1ai/', 'http://127.0.0.1:8080/', 'https://localhost:3000/', 'http://intranet/', 'http://[::1]/',
    ]);
  });
});

describe('seeds import', () => {
  it('a TSV line without a header is refused with its line number; nothing is added', async () => {
    const db = newDb();
    const r = await beebot(['seeds', 'import', file('tab.txt', 'https://ok.example/\nurl\thttps://a.ru\n')], { db });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/line 2: 'url\thttps:\/\/a\.ru'.*header/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(sites(db)).toEqual([]);
  });

  it('a semicolon-separated table (a spreadsheet export) is read by its header, commas in names kept', async () => {
    const db = newDb();
    const csv = '\uFEFFURL;Name;Short;Group\r\nhttps://www.hse.ru/;HSE, Moscow;hse;university\r\nmsu.ru;"MSU; Lomonosov";msu;university\r\n';
    const r = await beebot(['seeds', 'import', file('semi.csv', csv)], { db });
    expect(r).toMatchObject({ code: 0, stdout: 'added 2, skipped 0\n' });
    expect(sites(db)).toEqual([
      { url: 'https://www.hse.ru/', name: 'HSE, Moscow', short: 'hse', grp: 'university' },
      { url: 'https://msu.ru/', name: 'MSU; Lomonosov', short: 'msu', grp: 'university' },
    ]);
  });

  it('a tab-separated table with its columns in another order, and one with a bare url header', async () => {
    const db = newDb();
    const r = await beebot(['seeds', 'import', file('t.tsv', 'short\turl\tname\nhse\thttps://hse.ru/\tHSE\n')], { db });
    expect(r).toMatchObject({ code: 0, stdout: 'added 1, skipped 0\n' });
    const r2 = await beebot(['seeds', 'import', file('bare.txt', 'URL\nmsu.ru\n')], { db });
    expect(r2).toMatchObject({ code: 0, stdout: 'added 1, skipped 0\n' });
    expect(sites(db).map((s) => [s.url, s.short])).toEqual([['https://hse.ru/', 'hse'], ['https://msu.ru/', null]]);
  });

  it('a row with more cells than the header is refused with its line number', async () => {
    const db = newDb();
    const r = await beebot(['seeds', 'import', file('extra.csv', 'url;name\nhttps://a.ru/;A\nhttps://b.ru/;B;extra\n')], { db });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^beebot: nothing imported: .*line 3/);
    expect(sites(db)).toEqual([]);
  });

  it('strips comments after a URL, whole-line comments and blank lines', async () => {
    const db = newDb();
    const r = await beebot(['seeds', 'import', file('c.txt', '# HSE and SPbU\nhttps://hse.ru/en/ # the English site\n\n  https://spbu.ru/\t# SPbU\n')], { db });
    expect(r).toMatchObject({ code: 0, stdout: 'added 2, skipped 0\n' });
    expect(sites(db).map((s) => s.url)).toEqual(['https://hse.ru/en/', 'https://spbu.ru/']);
  });

  it('one bad URL among good ones rejects the whole file', async () => {
    const db = newDb();
    const r = await beebot(['seeds', 'import', file('mixed.txt', 'https://a.ru/\nht!tp://bad url\nhttps://b.ru/\n')], { db });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/line 2: 'ht!tp:\/\/bad url'/);
    expect(sites(db)).toEqual([]);
  });

  it('a UTF-16 file with its byte order mark (a spreadsheet\'s "Unicode text") imports; UTF-16 without one, a NUL byte, Latin-1 bytes are one line, exit 2, nothing added', async () => {
    const table = 'url\tname\nhttps://z.example/\tZürich\n';
    const bytes = (name: string, b: Buffer) => {
      const f = join(tmp.dir, name);
      writeFileSync(f, b);
      return f;
    };
    const le = newDb();
    expect(await beebot(['seeds', 'import', bytes('le.txt', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(table, 'utf16le')]))], { db: le })).toMatchObject({ code: 0, stdout: 'added 1, skipped 0\n' });
    expect(sites(le)).toEqual([{ url: 'https://z.example/', name: 'Zürich', short: null, grp: null }]);
    const be = newDb();
    expect(await beebot(['seeds', 'import', bytes('be.txt', Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(table, 'utf16le').swap16()]))], { db: be })).toMatchObject({ code: 0 });
    expect(sites(be).map((x) => x.name)).toEqual(['Zürich']);
    for (const [name, b, why] of [
      ['nobom.txt', Buffer.from(table, 'utf16le'), 'a NUL byte at line 1: not a text file (UTF-16 without a byte order mark?); save it as UTF-8'],
      ['nul.txt', Buffer.from('https://a.example/\nhttps://b.example/\0\n'), 'a NUL byte at line 2: not a text file (UTF-16 without a byte order mark?); save it as UTF-8'],
      ['latin1.csv', Buffer.from('url,name\nhttps://z.example/,Z\xfcrich\n', 'latin1'), 'not UTF-8 text (line 2); save it as UTF-8'],
    ] as const) {
      const db = newDb();
      const f = bytes(name, b);
      expect(await beebot(['seeds', 'import', f], { db })).toMatchObject({ code: 2, stderr: `beebot: nothing imported: ${f}: ${why}\n` });
      expect(sites(db)).toEqual([]);
    }
  });

  it('50,000 rows import in seconds, duplicates found among them (each row was compared with all before it: 4.5 minutes for 100,000)', async () => {
    const db = newDb();
    const rows = Array.from({ length: 50_000 }, (_, i) => `https://s${i}.example/,Site ${i}`);
    const t0 = performance.now();
    const r = await beebot(['seeds', 'import', file('many.csv', `url,name\n${rows.join('\n')}\nhttps://www.s7.example/,again\n`)], { db });
    expect(r).toMatchObject({ code: 0, stdout: 'added 50000, skipped 1\nskipped line 50002: https://www.s7.example/ duplicates https://s7.example/\n' });
    expect(performance.now() - t0).toBeLessThan(30_000);
  }, 60_000);

  it('a file it cannot read is one line saying why, exit 1, nothing added', async () => {
    const db = newDb();
    const missing = join(tmp.dir, 'nofile.csv');
    const folder = join(tmp.dir, 'a-folder.csv');
    mkdirSync(folder);
    for (const [f, why] of [[missing, 'no such file'], [folder, 'is a directory']]) {
      expect(await beebot(['seeds', 'import', f!], { db })).toMatchObject({ code: 1, stdout: '', stderr: `beebot: cannot read ${f}: ${why}\n` });
    }
    expect(sites(db)).toEqual([]);
  });

  it('a header naming a column twice is refused (the second would silently win)', async () => {
    const db = newDb();
    const r = await beebot(['seeds', 'import', file('twice.csv', 'url,name,Name\nhttps://a.example/,A,B\n')], { db });
    expect([r.code, r.stderr]).toEqual([2, "beebot: nothing imported: the header names the column 'name' twice (line 1)\n"]);
    expect(sites(db)).toEqual([]);
  });
});

describe('seeds export', () => {
  const listed = async (db: string) => {
    const r = await beebot(['seeds', 'list', '--json'], { db });
    expect(r.code).toBe(0);
    return (JSON.parse(r.stdout) as Record<string, unknown>[]).map(({ url, name, short, group, scope, prefix, include, exclude, sitemaps }) => ({
      url, name, short, group, scope, prefix, include, exclude, sitemaps,
    }));
  };

  it("writes a seed file that imports as the same sites, each with its own scope, patterns and sitemaps", async () => {
    const db = newDb();
    const table = 'url;name;group;scope;include;exclude;sitemaps\n' +
      'https://uni.example/;Uni, North;university;domain;/news/* re:[?&]p=\\d;;yes\n' +
      'https://docs.example/en/;Docs;;prefix;;*/print/*;\n' +
      'https://plain.example/;;;;;;\n';
    expect(await beebot(['seeds', 'import', file('own.csv', table)], { db })).toMatchObject({ code: 0, stdout: 'added 3, skipped 0\n' });
    await beebot(['seeds', 'add', 'https://lab.example/', '--short', 'lab', '--include', 're:[^ ]/x'], { db });
    const before = await listed(db);
    expect(before.slice(0, 2)).toEqual([
      { url: 'https://uni.example/', name: 'Uni, North', short: null, group: 'university', scope: 'domain', prefix: null, include: ['/news/*', 're:[?&]p=\\d'], exclude: [], sitemaps: 'yes' },
      { url: 'https://docs.example/en/', name: 'Docs', short: null, group: null, scope: 'prefix', prefix: '/en/', include: [], exclude: ['*/print/*'], sitemaps: 'no' },
    ]);

    const out = join(tmp.dir, 'seeds-out.csv');
    expect(await beebot(['seeds', 'export', out], { db })).toMatchObject({ code: 0, stdout: '' });
    const stdout = await beebot(['seeds', 'export', '-'], { db });
    expect(stdout.stdout).toBe(readFileSync(out, 'utf8'));
    expect(stdout.stdout.split('\r\n')[0]).toBe('url,name,short,group,scope,include,exclude,sitemaps');

    const copy = newDb();
    expect(await beebot(['seeds', 'import', out], { db: copy })).toMatchObject({ code: 0, stdout: 'added 4, skipped 0\n' });
    const after = await listed(copy);
    expect(after.map(({ include, ...s }) => s)).toEqual(before.map(({ include, ...s }) => s));
    // the lab's regex comes back without its space, meaning the same
    expect(after.map((s) => s.include)).toEqual([['/news/*', 're:[?&]p=\\d'], [], [], ['re:[^\\u0020]/x']]);
    // with a byte order mark for spreadsheet programs: the same sites
    const bom = join(tmp.dir, 'seeds-bom.csv');
    expect((await beebot(['seeds', 'export', bom, '--bom'], { db })).code).toBe(0);
    expect(readFileSync(bom, 'utf8')).toBe(`\uFEFF${readFileSync(out, 'utf8')}`);
    const viaBom = newDb();
    expect(await beebot(['seeds', 'import', bom], { db: viaBom })).toMatchObject({ code: 0, stdout: 'added 4, skipped 0\n' });
    expect(await listed(viaBom)).toEqual(after);
    // the same file again: every site is already there
    expect(await beebot(['seeds', 'import', out], { db: copy })).toMatchObject({ code: 0, stdout: expect.stringMatching(/^added 0, skipped 4\n/) });
  });

  it('quotes a cell with a line break (RFC 4180: a bare \\n too) or whitespace at either end, and imports it back the same', async () => {
    const db = newDb();
    await beebot(['seeds', 'add', 'https://a.example/', '--name', 'two\nlines', '--short', ' pad ', '--group', 'cr\rhere'], { db });
    await beebot(['seeds', 'add', 'https://b.example/', '--name', '\n# not a comment', '--short', '', '--group', '   '], { db });
    const out = join(tmp.dir, 'quoted.csv');
    expect((await beebot(['seeds', 'export', out], { db })).code).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(
      'url,name,short,group,scope,include,exclude,sitemaps\r\n' +
        'https://a.example/,"two\nlines"," pad ","cr\rhere",,,,\r\n' +
        'https://b.example/,"\n# not a comment",,"   ",,,,\r\n',
    );
    const copy = newDb();
    expect(await beebot(['seeds', 'import', out], { db: copy })).toMatchObject({ code: 0, stdout: 'added 2, skipped 0\n' });
    expect(await listed(copy)).toEqual(await listed(db));
    expect(sites(copy).map((x) => [x.name, x.short, x.grp])).toEqual([['two\nlines', ' pad ', 'cr\rhere'], ['\n# not a comment', null, '   ']]);
  });

  it("a row's own scope decides whether it duplicates a site: a path of a host already there is a site of its own as a prefix", async () => {
    const db = newDb();
    await beebot(['seeds', 'add', 'https://a.example/'], { db });
    const r = await beebot(['seeds', 'import', file('prefix.csv', 'url,scope\nhttps://a.example/blog/,prefix\nhttps://a.example/shop/,\n')], { db });
    expect(r).toMatchObject({ code: 0, stdout: 'added 1, skipped 1\nskipped line 3: https://a.example/shop/ duplicates https://a.example/\n' });
    expect(sites(db).map((s) => s.url)).toEqual(['https://a.example/', 'https://a.example/blog/']);
  });

  it('a symlink is written through, not replaced; a pipe (as /dev/stdout, /dev/full) is written in place, not renamed onto', async () => {
    const db = newDb();
    await beebot(['seeds', 'add', 'https://a.example/'], { db });
    mkdirSync(join(tmp.dir, 'real'));
    const link = join(tmp.dir, 'link.csv');
    symlinkSync(join(tmp.dir, 'real', 'seeds.csv'), link);
    writeFileSync(join(tmp.dir, 'real', 'seeds.csv'), 'old');
    expect(await beebot(['seeds', 'export', link], { db })).toMatchObject({ code: 0, stderr: `wrote 1 site to ${link}\n` });
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(tmp.dir, 'real', 'seeds.csv'), 'utf8')).toMatch(/^url,name,.*\r\nhttps:\/\/a\.example\/,/s);

    const fifo = join(tmp.dir, 'seeds.fifo');
    try {
      execFileSync('mkfifo', [fifo]);
    } catch (err) {
      throw new Error(`this test needs coreutils' mkfifo and cat (README: what must come from the system): ${(err as Error).message}`);
    }
    const reader = spawn('cat', [fifo], { stdio: ['ignore', 'pipe', 'ignore'] });
    let got = '';
    reader.stdout.setEncoding('utf8').on('data', (d: string) => (got += d));
    const read = new Promise((resolve) => reader.on('close', resolve));
    try {
      expect(await beebot(['seeds', 'export', fifo], { db })).toMatchObject({ code: 0, stderr: `wrote 1 site to ${fifo}\n` });
      expect(statSync(fifo).isFIFO()).toBe(true);
      await read;
      expect(got).toMatch(/^url,name,.*\r\nhttps:\/\/a\.example\/,/s);
    } finally {
      reader.kill();
    }
  });

  it('a file it cannot write is one line and exit 1', async () => {
    const db = newDb();
    await beebot(['seeds', 'add', 'https://a.example/'], { db });
    const r = await beebot(['seeds', 'export', join(tmp.dir, 'no-such-dir', 's.csv')], { db });
    expect([r.code, r.stderr]).toEqual([1, `beebot: cannot write ${join(tmp.dir, 'no-such-dir', 's.csv')}: the folder ${join(tmp.dir, 'no-such-dir')} does not exist\n`]);
  });
});
