// The map on the replay web's own server (serve.mjs): a generated documentation
// site crawled through it; the map's XML validates against the XSD, every fetched page appears
// once, the parent rules P1–P4 hold on the stored graph, and `check` reports as invalid exactly
// the targets the server itself answered 404.
import Database from 'better-sqlite3';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mapSchemaErrors } from '../helpers/map-schema.js';
import { beebot, tempDir } from '../helpers/cli.js';
import { fromMapJson, parentRuleViolations, type MapJsonNode } from '../helpers/parent-rules.js';
import { startReplayServer, type ReplayServer } from '../helpers/replay-server.js';


// A manual: index → 4 chapters → 3 sections each; sections link their neighbours, chapters link
// each other; two sections and one chapter link files the package does not contain.
function manual(dir: string): void {
  const page = (title: string, links: string[]) =>
    `<!DOCTYPE html><html><head><title>${title}</title></head><body>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</body></html>`;
  const files: Record<string, string> = {};
  const chapters = [1, 2, 3, 4];
  files['index.html'] = page('Manual', [...chapters.map((c) => `ch${c}/index.html`), 'http://www.example.org/']);
  for (const c of chapters) {
    const others = chapters.filter((x) => x !== c).map((x) => `../ch${x}/index.html`);
    files[`ch${c}/index.html`] = page(`Chapter ${c}`, [...[1, 2, 3].map((s) => `s${s}.html`), ...others, ...(c === 2 ? ['missing-figure.html'] : [])]);
    for (const s of [1, 2, 3]) {
      const links = ['index.html', `s${(s % 3) + 1}.html`, `http://ext${c}${s}.example/`];
      if (c === 3 && s === 2) links.push('../old/removed.html');
      if (c === 4 && s === 3) links.push('../ch1/s9.html');
      files[`ch${c}/s${s}.html`] = page(`Section ${c}.${s}`, links);
    }
  }
  for (const [f, body] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    writeFileSync(join(dir, f), body);
  }
}

let tmp: ReturnType<typeof tempDir>;
let server: ReplayServer;
let db: string;
beforeAll(async () => {
  tmp = tempDir();
  manual(join(tmp.dir, 'root', 'hosts', 'manual.test'));
  server = await startReplayServer(join(tmp.dir, 'root'));
  db = join(tmp.dir, 'm.db');
  await beebot(['seeds', 'add', 'http://manual.test/index.html', '--short', 'man'], { db });
  const r = await beebot(['crawl', '--delay', '0', '--proxy', `http://127.0.0.1:${server.port}`, '--budget', 'none'], { db });
  expect(r.code, r.stderr).toBe(0);
});
afterAll(() => {
  server.child.kill();
  tmp.cleanup();
});

const query = <T,>(sql: string): T[] => {
  const d = new Database(db, { readonly: true });
  try {
    return d.prepare(sql).all() as T[];
  } finally {
    d.close();
  }
};

describe('map and check on the replay web server', () => {
  it('the XML validates, every fetched page appears once, and P1–P4 hold', async () => {
    const xml = join(tmp.dir, 'map.xml');
    let r = await beebot(['map', 'man', xml], { db });
    expect(r.code, r.stderr).toBe(0);
    expect(await mapSchemaErrors(xml)).toEqual([]);
    const ids = [...readFileSync(xml, 'utf8').matchAll(/<page id="(\d+)"/g)].map((m) => Number(m[1]));
    const fetched = query<{ id: number }>("SELECT DISTINCT page_id AS id FROM fetches").map((p) => p.id);
    expect(fetched.length).toBe(20); // index, 4 chapters, 12 sections, 3 missing files
    expect(new Set(ids).size).toBe(ids.length); // once each
    expect(ids.filter((id) => fetched.includes(id)).sort((a, b) => a - b)).toEqual([...fetched].sort((a, b) => a - b));

    const json = join(tmp.dir, 'map.json');
    r = await beebot(['map', 'man', json], { db });
    expect(r.code, r.stderr).toBe(0);
    const { tree, ranks } = fromMapJson((JSON.parse(readFileSync(json, 'utf8')) as { root: MapJsonNode }).root);
    const edges = query<{ src: number; dst: number }>('SELECT src, dst FROM edges');
    const start = query<{ id: number }>('SELECT id FROM pages WHERE level = 0')[0]!.id;
    expect(parentRuleViolations(tree, start, edges, ranks)).toEqual([]);
  });

  it('the invalid links are exactly the targets the server answered 404', async () => {
    const r = await beebot(['check', 'man', '--no-external', '--json'], { db });
    expect(r.code, r.stderr).toBe(1); // invalid links found
    const rows = JSON.parse(r.stdout) as { kind: string; url: string; status: string | number }[];
    const invalid = new Set(rows.filter((x) => x.kind === 'internal').map((x) => x.url));
    const notFound = new Set(server.log().filter((l) => l.startsWith('404 ') && !l.includes('/robots.txt')).map((l) => l.split(' ').at(-1)!));
    expect([...invalid].sort()).toEqual([...notFound].sort());
    expect(invalid).toEqual(new Set(['http://manual.test/ch2/missing-figure.html', 'http://manual.test/old/removed.html', 'http://manual.test/ch1/s9.html']));
  });
});
