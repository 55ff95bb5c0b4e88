// Characters XML 1.0 forbids even as references (C0 controls but tab/LF/CR, lone surrogates,
// U+FFFE/U+FFFF): page-derived text may hold them, and one makes the whole file unreadable.
const INVALID = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Text for an XML attribute value or element content. */
export function xmlText(value: unknown): string {
  return String(value ?? '')
    .replace(INVALID, '\ufffd')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    // Attribute-value normalization would turn these into spaces: keep them as references.
    .replace(/\t/g, '&#9;')
    .replace(/\n/g, '&#10;')
    .replace(/\r/g, '&#13;');
}
