// The promise three changes in a row broke without a test seeing it: a full crawl of real sites
// (the replay web, ../shared/replay-web: documentation sites from Debian packages, on loopback)
// fetches every page an independent breadth-first walk of the same files reaches, and finds the
// same distinct external URLs. Then the same crawl where some sites' twin hosts fail (robots.txt
// 502, a certificate nobody trusts, a host the proxy cannot reach): the rest of each site is
// fetched all the same, and the twins' pages are counted as waiting, named with their cause.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { beebot, tempDir, type CliResult } from '../helpers/cli.js';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.js';
import { rows } from '../helpers/read-db.js';
import { shared } from '../helpers/shared.js';

const REPLAY = fileURLToPath(shared('replay-web/'));
/** The sites crawled: the replay web's smaller ones (3,100 pages), two of them with a real twin host. */
const HOSTS = [
  'www.sqlite.org', 'varnish-cache.org', 'www.postfix.org', 'www.sphinx-doc.org', 'lxml.de', 'nodejs.org', 'tomcat.apache.org',
  'ipython.readthedocs.io', 'docs.octave.org', 'docbook.sourceforge.net',
];
/** Made once by setup.sh (apt-get download of the sites' packages, about 30 MB) and kept between runs. */
const ROOT = process.env.BEEBOT_E2E_ROOT ?? join(homedir(), '.cache/beebot-e2e');

let tmp: ReturnType<typeof tempDir>;
const sites: { host: string; start: string }[] = [];

/** The replay web of HOSTS, set up when missing; its sites in catalog order. */
function setUp(): void {
  const catalog = readFileSync(join(REPLAY, 'catalog.tsv'), 'utf8').split('\n').filter((l) => HOSTS.includes(l.split('\t')[1] ?? ''));
  expect(catalog).toHaveLength(HOSTS.length);
  mkdirSync(ROOT, { recursive: true });
  writeFileSync(join(ROOT, 'catalog.tsv'), catalog.join('\n') + '\n');
  if (!existsSync(join(ROOT, 'seeds.tsv')) || HOSTS.some((h) => !existsSync(join(ROOT, 'hosts', h)))) {
    const r = spawnSync('bash', [join(REPLAY, 'setup.sh'), '--catalog', join(ROOT, 'catalog.tsv'), '--no-measure', ROOT], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`setting up the replay web in ${ROOT} failed: ${(r.stderr || r.stdout).trim().split('\n').slice(-3).join(' | ')}`);
  }
  for (const line of readFileSync(join(ROOT, 'seeds.tsv'), 'utf8').trim().split('\n')) {
    const [host, start] = line.split('\t');
    if (HOSTS.includes(host!) && start?.startsWith('http')) sites.push({ host: host!, start: start! });
  }
  expect(sites.map((s) => s.host).sort()).toEqual([...HOSTS].sort());
}

/**
 * The independent walk: the replay web's own breadth-first walk (limit.py page_sets on measure.py,
 * level <= 5, read from the files, not over HTTP), per site its pages and external URLs as
 * limit.py normalizes them. The site's www twin is the site's own host to beebot, so its URLs are
 * not external here either.
 */
function independentWalk(root: string): Map<string, { pages: number; external: Set<string> }> {
  writeFileSync(join(root, 'sites.tsv'), ['host\tstart\tgroup', ...sites.map((s) => `${s.host}\t${s.start}\tA`)].join('\n') + '\n');
  const code = `import sys, json; sys.path.insert(0, sys.argv[1]); import limit
sets = limit.page_sets(sys.argv[2])
print(json.dumps({h: {"pages": len(s["pages"]), "external": sorted(set(u for p in s["pages"] for u in p))} for h, s in sets.items()}))`;
  const r = spawnSync('python3', ['-c', code, REPLAY, root], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (r.error) throw new Error(`the independent walk needs python3 (a system requirement, see the README): ${r.error.message}`);
  if (r.status !== 0) throw new Error(`the independent walk failed: ${r.stderr}`);
  const out = new Map<string, { pages: number; external: Set<string> }>();
  for (const [host, s] of Object.entries(JSON.parse(r.stdout) as Record<string, { pages: number; external: string[] }>)) {
    const own = host.replace(/^www\./, '');
    out.set(host, { pages: s.pages, external: new Set(s.external.filter((u) => !u.startsWith(`${own}/`) && !u.startsWith(`${own}:`))) });
  }
  return out;
}

/** limit.py's norm: host without www. and the default port, path, query; the scheme and the fragment dropped. */
function norm(u: string): string {
  const x = new URL(u);
  const port = x.port === '' || x.port === '80' || x.port === '443' ? '' : `:${x.port}`;
  // Python's hostname drops an IPv6 address's brackets
  return `${x.hostname.toLowerCase().replace(/^www\./, '').replace(/^\[(.*)\]$/, '$1')}${port}${x.pathname}${x.search}`;
}

async function serve(root: string): Promise<{ port: number; child: ChildProcess }> {
  const child = spawn(process.execPath, [join(REPLAY, 'serve.mjs'), '--root', root, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((ok, fail) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /proxy on http:\/\/[^:]+:(\d+)\//.exec(out);
      if (m) ok(Number(m[1]));
    });
    child.on('exit', (code) => fail(new Error(`serve.mjs exited ${code}`)));
  });
  return { port, child };
}

/** Seeds in the replay web's order, a short back-off cap (a failing host is given up within seconds), then one full crawl. */
async function fullCrawl(db: string, proxyPort: number): Promise<CliResult> {
  const seeds = `${db}.csv`;
  writeFileSync(seeds, ['url,short', ...sites.map((s) => `${s.start},${s.host}`)].join('\n') + '\n');
  expect((await beebot(['seeds', 'import', seeds], { db })).code).toBe(0);
  expect((await beebot(['config', 'set', 'max-backoff', '2000'], { db })).code).toBe(0);
  return beebot(['crawl', '--budget', 'none', '--delay', '0', '--concurrency', '2', '--proxy', `http://127.0.0.1:${proxyPort}`], {
    db, env: { NODE_EXTRA_CA_CERTS: join(ROOT, 'tls/ca.pem') },
  });
}

/**
 * Each site's pages fetched on its own host, and the pages a twin host holds (not fetched: waiting,
 * or skipped as a dead end), both as URLs on the site's own host. A page is one page whichever of
 * the site's hosts links it (www. and the scheme aside): one found first on a twin is the twin's.
 */
function pagesBySite(db: string): Map<string, { fetched: Set<string>; twins: Set<string> }> {
  const out = new Map<string, { fetched: Set<string>; twins: Set<string> }>();
  for (const r of rows<{ short: string; url: string; status: string }>(db, 'SELECT s.short, p.url, p.status FROM pages p JOIN sites s ON s.id = p.site_id')) {
    const u = new URL(r.url);
    const own = u.hostname === r.short;
    if (own !== (r.status === 'done') || (!own && !['queued', 'skipped'].includes(r.status))) continue;
    if (!out.has(r.short)) out.set(r.short, { fetched: new Set(), twins: new Set() });
    out.get(r.short)![own ? 'fetched' : 'twins'].add(`http://${r.short}${u.pathname}${u.search}`);
  }
  return out;
}

/** The share of b's elements not in a, and of a's not in b. */
const apart = (a: Set<string>, b: Set<string>) => {
  let n = 0;
  for (const x of a) if (!b.has(x)) n++;
  for (const x of b) if (!a.has(x)) n++;
  return n / Math.max(1, b.size);
};

const noTrace = (r: CliResult) => expect(r.stderr).not.toMatch(/\n\s+at /);

describe('a full crawl of real sites', () => {
  let web: { port: number; child: ChildProcess };
  let baseline: Map<string, { fetched: Set<string>; twins: Set<string> }>;

  beforeAll(async () => {
    tmp = tempDir();
    setUp();
    web = await serve(ROOT);
  }, 600_000);
  afterAll(() => {
    web?.child.kill('SIGTERM');
    tmp?.cleanup();
  });

  it('fetches every page an independent breadth-first walk reaches, and the same distinct external URLs (within 1 %)', async () => {
    const db = join(tmp.dir, 'full.db');
    const r = await fullCrawl(db, web.port);
    noTrace(r);
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    const walk = independentWalk(ROOT);
    baseline = pagesBySite(db);
    const fetched = (host: string) => rows<{ n: number }>(db, "SELECT count(*) AS n FROM pages p JOIN sites s ON s.id = p.site_id WHERE s.short = ? AND p.status = 'done' AND p.url LIKE ?", host, `%://${host}/%`)[0]!.n;
    const external = new Map<string, Set<string>>();
    for (const x of rows<{ short: string; url: string }>(db, 'SELECT s.short, e.url FROM external_links e JOIN sites s ON s.id = e.site_id')) {
      if (!external.has(x.short)) external.set(x.short, new Set());
      external.get(x.short)!.add(norm(x.url));
    }
    const table = sites.map(({ host }) => {
      const w = walk.get(host)!;
      const pages = fetched(host);
      const ext = external.get(host) ?? new Set<string>();
      return { host, pages, walked: w.pages, urls: ext.size, walkedUrls: w.external.size, urlsApart: apart(ext, w.external) };
    });
    for (const t of table) {
      expect(t.pages, `${t.host}: pages fetched against the walk's\n${JSON.stringify(table, null, 1)}`).toBe(t.walked);
      expect(t.urlsApart, `${t.host}: distinct external URLs that only one side has, as a share of the walk's\n${JSON.stringify(table, null, 1)}`).toBeLessThanOrEqual(0.01);
    }
    // www.sqlite.org's pages link its bare twin over https, which the replay web does not serve:
    // those pages wait, and the summary says for which host and why: robots.txt refused, or, when
    // the origin's pages failed often enough first (a slower machine retries more), that streak
    // with the same last cause
    expect(r.stdout).toMatch(
      /site www\.sqlite\.org: [\d,]+ pages left: [\d,]+ waits? for https:\/\/sqlite\.org \((robots\.txt: |\d+ pages in a row failed for now, the last with (robots\.txt: )?)proxy refused the tunnel \(502\)/,
    );
    const waiting = rows<{ n: number }>(db, "SELECT count(*) AS n FROM pages p JOIN sites s ON s.id = p.site_id WHERE s.short = 'www.sqlite.org' AND p.status = 'queued' AND p.retry_at IS NOT NULL AND p.url LIKE 'https://sqlite.org/%'")[0]!.n;
    expect(waiting).toBeGreaterThan(0);
    expect(r.stdout).toMatch(/^left queued: .* waiting for \d+ hosts?/m);
  }, 600_000);

  // Live equals replay: the offline replay (src/replay, its queue the in-memory frontier) picks the
  // same sites and earns the same rewards, pull for pull, as the real crawl with its store's
  // frontier, on a page graph of the same sites built afresh with beebot's own fetch and page code.
  it('live equals replay: the real crawl and the replay on its page graph part at no pull, in every order', () => {
    rmSync(join(ROOT, 'beebot-graph.json.gz'), { force: true });
    const live = fileURLToPath(new URL('../../dist/scripts/harvest-live.js', import.meta.url));
    const r = spawnSync(process.execPath, [live, '--budgets', '400', '--orders', 'value,bfs,best-first'], { encoding: 'utf8', env: { ...process.env, REPLAY_ROOT: ROOT } });
    expect(r.status, r.stderr).toBe(0);
    const [head, ...cells] = r.stdout.trim().split('\n').map((l) => l.split('\t'));
    expect(cells).toHaveLength(3);
    const col = (name: string) => head!.indexOf(name);
    for (const c of cells) {
      expect(c[col('first parting pull')], c.join(' ')).toBe('none');
      expect(Number(c[col('live pairs')])).toBeGreaterThan(1000);
      expect(c[col('live pairs')]).toBe(c[col('replay pairs')]);
    }
  }, 600_000);

  describe('with failing twin hosts', () => {
    let root: string;
    let faults: FaultProxy;

    beforeAll(async () => {
      // A copy of the web in links (nothing copied but two start pages): www.postfix.org's start
      // page links its bare twin, whose robots.txt answers 502; www.sphinx-doc.org's links its bare
      // twin over https, whose certificate is self-signed.
      root = join(tmp.dir, 'twins');
      mkdirSync(join(root, 'hosts'), { recursive: true });
      for (const host of readdirSync(join(ROOT, 'hosts'))) symlinkSync(join(ROOT, 'hosts', host), join(root, 'hosts', host));
      symlinkSync(join(ROOT, 'hosts', 'www.postfix.org'), join(root, 'hosts', 'postfix.org'));
      symlinkSync(join(ROOT, 'hosts', 'www.sphinx-doc.org'), join(root, 'hosts', 'sphinx-doc.org'));
      symlinkSync(join(ROOT, 'tls'), join(root, 'tls'));
      addLinks(root, 'www.postfix.org', 'index.html', ['http://postfix.org/postfix-manuals.html', 'http://postfix.org/BASIC_CONFIGURATION_README.html', 'http://postfix.org/TLS_README.html']);
      addLinks(root, 'www.sphinx-doc.org', 'en/master/index.html', ['https://sphinx-doc.org/en/master/usage/index.html', 'https://sphinx-doc.org/en/master/glossary.html']);
      web.child.kill('SIGTERM');
      web = await serve(root);
      faults = await startFaultProxy(web.port, { robots502: ['postfix.org'], untrusted: ['sphinx-doc.org'] });
    }, 60_000);
    afterAll(() => faults?.close());

    it('every page of the reachable hosts is fetched; the twins wait, named with their cause, and the run does not wait for the certificate', async () => {
      expect(baseline, 'the full crawl ran first').toBeDefined();
      const db = join(tmp.dir, 'twins.db');
      const r = await fullCrawl(db, faults.port);
      noTrace(r);
      expect(r.code, r.stderr.slice(-2000)).toBe(0);
      const got = pagesBySite(db);
      for (const { host } of sites) {
        const { fetched, twins } = got.get(host)!;
        const before = baseline.get(host)!.fetched;
        expect([...before].filter((u) => !fetched.has(u) && !twins.has(u)), `${host}: pages the full crawl fetched, neither fetched nor a twin's now`).toEqual([]);
        expect([...fetched].filter((u) => !before.has(u)), `${host}: pages the full crawl did not fetch`).toEqual([]);
      }
      expect(r.stdout).toMatch(/^this run: [\d,]+ pages/m);
      expect(r.stdout).toMatch(/site www\.postfix\.org: \d+ pages? left: \d+ waits? for http:\/\/postfix\.org \(robots\.txt HTTP 502; next try /);
      expect(r.stdout).toMatch(/site www\.sphinx-doc\.org: \d+ pages? left: \d+ waits? for https:\/\/sphinx-doc\.org \(certificate not trusted: self-signed certificate; in the next run\)/);
      expect(r.stdout).toMatch(/^not fetched: \d+ pages? on hosts whose TLS certificate is not accepted \(last: https:\/\/sphinx-doc\.org\/\S+: certificate not trusted: self-signed certificate\)/m);
      const twins = rows<{ host: string; n: number; waiting: number; attempts: number }>(
        db,
        `SELECT CASE WHEN url LIKE 'http://postfix.org/%' THEN 'postfix' ELSE 'sphinx' END AS host, count(*) AS n,
           sum(CASE WHEN status = 'queued' AND retry_at IS NOT NULL THEN 1 ELSE 0 END) AS waiting, sum(attempts) AS attempts
         FROM pages WHERE url LIKE 'http://postfix.org/%' OR url LIKE 'https://sphinx-doc.org/%' GROUP BY 1 ORDER BY 1`,
      );
      expect(twins.map((t) => [t.host, t.n === t.waiting])).toEqual([['postfix', true], ['sphinx', true]]);
      // a certificate is not a failure for now: no page of the host is charged an attempt
      expect(twins[1]!.attempts).toBe(0);
      // the opt-in crawls the untrusted twin, and says it is on
      const insecure = await beebot(['crawl', '--no-check-certificate', '--proxy', `http://127.0.0.1:${faults.port}`], { db, env: { NODE_EXTRA_CA_CERTS: join(ROOT, 'tls/ca.pem') } });
      noTrace(insecure);
      expect(rows<{ n: number }>(db, "SELECT count(*) AS n FROM pages WHERE url LIKE 'https://sphinx-doc.org/%' AND status = 'queued'")[0]!.n).toBe(0);
      const status = await beebot(['status'], { db });
      expect(status.stdout).toMatch(/certificates: not checked \(check-certificate no\)/);
    }, 600_000);
  });
});

/** Replace root/hosts/host/path by a copy with `links` added after <body>: each folder on its way becomes a folder of links to what it held. */
function addLinks(root: string, host: string, path: string, links: string[]): void {
  const parts = path.split('/');
  let dir = join(root, 'hosts', host);
  for (const [i, part] of parts.entries()) {
    if (lstatSync(dir).isSymbolicLink()) {
      const target = realpathSync(dir);
      unlinkSync(dir);
      mkdirSync(dir);
      for (const e of readdirSync(target)) symlinkSync(join(target, e), join(dir, e));
    }
    const next = join(dir, part);
    if (i === parts.length - 1) {
      const html = readFileSync(next, 'utf8');
      unlinkSync(next);
      writeFileSync(next, html.replace(/<body([^>]*)>/i, `<body$1>${links.map((l) => `<a href="${l}">twin</a>`).join(' ')}`));
    }
    dir = next;
  }
}
