// Builds the cue prior shipped with beebot (data/cue-prior.json) from the replay web's page graph:
// every page of its 20 sites, read breadth-first, under the cues of the first link that reaches
// it (src/replay/cue-prior.ts); only the kinds of cue --order value reads (link-value.ts).
// The benchmarks never measure with this file: they learn a prior on the training sites of each fold.
//   node dist/scripts/cue-prior.js [--out data/cue-prior.json]
import { writeFileSync, renameSync } from 'node:fs';
import { cuePrior } from '../src/replay/cue-prior.js';
import { priorToFile } from '../src/schedule/links/cue-prior-file.js';
import { VALUE_DEFAULTS } from '../src/schedule/links/link-value.js';
import { SHIPPED_PRIOR } from '../src/schedule/links/shipped-prior.js';
import { ensureGraph } from './harvest-graph.js';
import { helpFromHeader } from './script-help.js';

helpFromHeader(import.meta.url);

const argv = process.argv.slice(2);
const out = argv.includes('--out') ? argv[argv.indexOf('--out') + 1]! : SHIPPED_PRIOR.pathname;
const web = ensureGraph();
const kinds = ['u', 'a', 'c', 'h', 'p'].filter((k) => !VALUE_DEFAULTS.drop?.includes(k));
const prior = cuePrior(web, kinds);
const about = `beebot's cue prior: ${web.sites.length} documentation sites of the replay web, ${web.sites.reduce((a, s) => a + s.pages.length, 0)} pages; cue kinds ${kinds.join(', ')}; per cue [pages, new external URLs]`;
writeFileSync(`${out}.tmp`, `${JSON.stringify(priorToFile(prior, about), null, 0)}\n`);
renameSync(`${out}.tmp`, out);
console.log(`${out}: ${prior.cues.size} cues, mean ${prior.mean.toFixed(3)} new external URLs per page`);
