import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/**
 * The browser builds of graphology and sigma, as shipped in their npm packages (UMD: they define
 * the globals `graphology` and `Sigma`), for the report to inline: the page then draws its network
 * offline, with nothing fetched. Source-map comments are dropped so that no tool asks for a .map.
 */
export function rendererBundle(): string {
  const file = (pkg: string, name: string) => readFileSync(join(dirname(require.resolve(pkg)), name), 'utf8');
  return [file('graphology', 'graphology.umd.min.js'), file('sigma', 'sigma.min.js')]
    .map((js) => js.replace(/\n\/\/# sourceMappingURL=\S*\s*$/, '\n'))
    .join('\n;\n');
}
