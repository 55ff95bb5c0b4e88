/**
 * Spreadsheet formula injection (OWASP "CSV Injection"): Excel, LibreOffice and Google Sheets run
 * a cell that starts with = + - @ (or tab / CR, or the full-width ＝ ＋ － ＠ that Apple Numbers
 * folds) as a formula. Page authors write anchor texts and hrefs, so exported text cells get a
 * leading apostrophe, which spreadsheets show as plain text. Numbers are left alone (a negative
 * number is data, not a formula). `--raw` turns this off.
 */
const TRIGGER = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;

export function neutralizeFormula(value: string): string {
  return TRIGGER.test(value) ? `'${value}` : value;
}
