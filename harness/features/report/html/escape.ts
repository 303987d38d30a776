/**
 * Escaping for the HTML report. Everything that comes from results or records
 * (scenario titles, planner names, arguments, error messages) is data, never
 * markup: text and attributes go through `escapeHtml`, the embedded data block
 * through `scriptJson`.
 */

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Text or a double- or single-quoted attribute value, escaped.
 *
 * @example
 * escapeHtml('<b title="x">') // '&lt;b title=&quot;x&quot;&gt;'
 */
export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);
}

/**
 * JSON safe inside `<script type="application/json">`: `<`, `>` and `&` become
 * `\u003c`, `\u003e`, `\u0026` (so neither `</script` nor `<!--` can occur and
 * end or derail the element), and U+2028/U+2029 are escaped too. `JSON.parse`
 * of the element's text gives the value back unchanged.
 *
 * @example
 * scriptJson({ title: '</script>' }) // '{"title":"\\u003c/script\\u003e"}'
 */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}
