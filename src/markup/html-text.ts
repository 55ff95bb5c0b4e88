// Characters HTML calls parse errors in text (C0 controls but tab, LF, FF, CR; DEL; C1 controls),
// and lone surrogates (toWellFormed): page-derived text may hold them; a browser drops a NUL, and
// a NUL or an escape byte makes tools take the whole file for binary.
const CONTROLS = /[\u0000-\u0008\u000b\u000e-\u001f\u007f-\u009f]/g;

/** Text for HTML element content or a quoted attribute value. */
export const esc = (v: unknown): string =>
  String(v ?? '')
    .toWellFormed()
    .replace(CONTROLS, '\ufffd')
    .replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
