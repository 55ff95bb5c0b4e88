// The map's XML against schema/beebot-map.xsd, with libxml2's xmllint compiled to WebAssembly
// (xmllint-wasm, from npm): the same validator as the xmllint command, nothing to install.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { memoryPages, validateXML } from 'xmllint-wasm';

const XSD = readFileSync(fileURLToPath(new URL('../../schema/beebot-map.xsd', import.meta.url)), 'utf8');

/** xmllint's schema errors for the file, one line each; [] when it validates. */
export async function mapSchemaErrors(file: string): Promise<string[]> {
  const r = await validateXML({
    xml: [{ fileName: 'map.xml', contents: readFileSync(file) }],
    schema: [XSD],
    maxMemoryPages: memoryPages.GiB,
  });
  return r.valid ? [] : r.errors.map((e) => e.rawMessage);
}
