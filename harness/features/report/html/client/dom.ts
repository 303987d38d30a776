/**
 * Small DOM helpers of the report's drill-down. Everything is built with createElement and
 * textContent only, so nothing from a record is ever parsed as markup.
 */

/** What `el` and `add` accept as children: nodes, text, nothing, or lists of them. */
export type Child = Node | string | number | null | undefined | false | Child[];

type Attrs = Record<string, string | number | boolean | null | undefined>;

const SVG = 'http://www.w3.org/2000/svg';

/**
 * An HTML element with attributes (`text` sets its text, `class` its class name; `true` is an
 * empty attribute, `false`, `null` and `undefined` none) and children.
 *
 * @example
 * el('p', { class: 'hint', text: 'nothing to do' })
 */
export function el(tag: string, attrs?: Attrs | null, ...children: Child[]): HTMLElement {
  const node = document.createElement(tag);
  if (attrs)
    for (const k of Object.keys(attrs)) {
      const v = attrs[k];
      if (v === undefined || v === null || v === false) continue;
      if (k === 'text') node.textContent = String(v);
      else if (k === 'class') node.className = String(v);
      else node.setAttribute(k, v === true ? '' : String(v));
    }
  for (const c of children) add(node, c);
  return node;
}

/** Appends a child (text as a text node; lists flattened; nothing for null, undefined and false). */
export function add(node: Node, child: Child): void {
  if (child === undefined || child === null || child === false) return;
  if (Array.isArray(child)) for (const c of child) add(node, c);
  else
    node.appendChild(
      typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child,
    );
}

/** An SVG element with attributes. */
export function svg(tag: string, attrs: Record<string, string | number> = {}): SVGElement {
  const node = document.createElementNS(SVG, tag) as SVGElement;
  for (const k of Object.keys(attrs)) node.setAttribute(k, String(attrs[k]));
  return node;
}

/** A drill-down section with its heading. */
export function section(title: string, id: string): HTMLElement {
  const s = el('section', { class: 'drill-section', 'aria-labelledby': id });
  s.appendChild(el('h3', { id, text: title }));
  return s;
}

/** Facts as a list of code items, `cls` saying which (held, missing). */
export function factList(facts: readonly string[], cls = ''): HTMLElement {
  return el(
    'ul',
    { class: `facts ${cls}` },
    facts.map((f) => el('li', null, el('code', { text: f }))),
  );
}

/** A `dl` of the run-summary kind and the function that adds a row to it. */
export function rows(cls: string): { dl: HTMLElement; row: (k: string, v: Child) => void } {
  const dl = el('dl', { class: cls });
  return { dl, row: (k, v) => void dl.appendChild(el('div', null, el('dt', { text: k }), el('dd', null, v))) };
}
