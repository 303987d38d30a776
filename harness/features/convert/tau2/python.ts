/**
 * What `oneway import tau2` reads from tau2-bench's Python sources, without running Python: the tools
 * a domain's toolkit declares (`@is_tool(ToolType.X)` methods of src/tau2/domains/<d>/tools.py, with
 * their typed parameters and docstrings) and the data model's `Literal` aliases and pydantic models
 * (src/tau2/domains/<d>/data_model.py), which give the parameters' JSON Schema.
 */

/** tau2's conceptual tool type (`ToolType` in src/tau2/environment/toolkit.py). */
type Tau2ToolType = 'read' | 'write' | 'think' | 'generic';

interface PyParam {
  name: string;
  /** The Python annotation as written, e.g. `List[FlightInfo | dict]`. */
  type: string;
  description: string;
}

export interface PyTool {
  name: string;
  type: Tau2ToolType;
  /** `mutates_state=` when the decorator gives it (else tau2 infers it from the type). */
  mutatesState?: boolean;
  /** The docstring up to its `Args:` section, whitespace folded. */
  description: string;
  params: PyParam[];
}

interface PyModel {
  fields: { name: string; type: string; description: string }[];
}

export interface PyDataModel {
  /** `Name = Literal["a", "b"]` aliases. */
  literals: Record<string, string[]>;
  models: Record<string, PyModel>;
}

const DECORATOR =
  /^ {4}@is_tool\(\s*(?:ToolType\.(READ|WRITE|THINK|GENERIC))?\s*(?:,\s*mutates_state\s*=\s*(True|False)\s*)?\)\s*$/;

/** Splits a parameter list at its top-level commas (brackets nest). */
function splitTop(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (const c of text) {
    if (c === '[' || c === '(') depth++;
    else if (c === ']' || c === ')') depth--;
    if (c === ',' && depth === 0) {
      parts.push(cur);
      cur = '';
    } else cur += c;
  }
  if (cur.trim() !== '') parts.push(cur);
  return parts.map((p) => p.trim()).filter((p) => p !== '');
}

function fold(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The docstring's summary (before `Args:`) and its per-argument descriptions. */
function readDocstring(doc: string): { description: string; args: Record<string, string> } {
  const lines = doc.split('\n');
  const summary: string[] = [];
  const args: Record<string, string> = {};
  let section: 'summary' | 'args' | 'other' = 'summary';
  let current: string | undefined;
  for (const raw of lines) {
    const line = raw.trim();
    if (/^(Args|Arguments|Parameters):$/.test(line)) {
      section = 'args';
      continue;
    }
    if (/^(Returns|Raises|Yields|Example|Examples|Note):?$/.test(line)) {
      section = 'other';
      continue;
    }
    if (section === 'summary') summary.push(line);
    else if (section === 'args') {
      const m = /^([A-Za-z_][A-Za-z0-9_]*)\s*(?:\([^)]*\))?:\s*(.*)$/.exec(line);
      if (m) {
        current = m[1] as string;
        args[current] = m[2] as string;
      } else if (current !== undefined && line !== '') args[current] = `${args[current]} ${line}`;
    }
  }
  return {
    description: fold(summary.join(' ')),
    args: Object.fromEntries(Object.entries(args).map(([k, v]) => [k, fold(v)])),
  };
}

/**
 * The tools of a tau2 toolkit source (tools.py). Commented-out tools (`# @is_tool`) are not tools;
 * private helpers (no decorator) are skipped.
 *
 * @example
 * parseTools(readFileSync('src/tau2/domains/retail/tools.py', 'utf8')).map((t) => t.name)
 */
export function parseTools(source: string): PyTool[] {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const tools: PyTool[] = [];
  for (let i = 0; i < lines.length; i++) {
    const dec = DECORATOR.exec(lines[i] as string);
    if (!dec) continue;
    // The signature runs from `def` to the line ending in `:` at bracket depth 0.
    let j = i + 1;
    while (j < lines.length && !/^ {4}def /.test(lines[j] as string)) j++;
    let sig = '';
    let depth = 0;
    for (; j < lines.length; j++) {
      // A trailing comment (`-> AirportInfo:  # DONE`) is not part of the signature.
      const l = (lines[j] as string).replace(/\s+#.*$/, '');
      sig += `${l}\n`;
      for (const c of l) {
        if (c === '(' || c === '[') depth++;
        else if (c === ')' || c === ']') depth--;
      }
      if (depth === 0 && /:\s*$/.test(l)) break;
    }
    const m = /def\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(([\s\S]*)\)\s*(?:->\s*[\s\S]*?)?:\s*$/.exec(sig.trim());
    if (!m) continue;
    const name = m[1] as string;
    const params = splitTop(m[2] as string)
      .filter((p) => p !== 'self')
      .map((p) => {
        const pm = /^([A-Za-z_][A-Za-z0-9_]*)\s*(?::\s*([^=]+?))?\s*(?:=.*)?$/.exec(p);
        return { name: pm?.[1] ?? p, type: fold(pm?.[2] ?? 'str') };
      });
    // The docstring is the triple-quoted string right after the signature.
    let doc = '';
    const k = j + 1;
    const open = /^\s*("""|''')(.*)$/.exec(lines[k] ?? '');
    if (open) {
      const q = open[1] as string;
      let rest = open[2] as string;
      let n = k;
      const body: string[] = [];
      while (!rest.includes(q) && n + 1 < lines.length) {
        body.push(rest);
        n++;
        rest = lines[n] as string;
      }
      body.push(rest.slice(0, rest.indexOf(q)));
      doc = body.join('\n');
    }
    const d = readDocstring(doc);
    const type = (dec[1] ?? 'READ').toLowerCase() as Tau2ToolType;
    tools.push({
      name,
      type,
      ...(dec[2] !== undefined ? { mutatesState: dec[2] === 'True' } : {}),
      description: d.description,
      params: params.map((p) => ({ ...p, description: d.args[p.name] ?? '' })),
    });
    i = j;
  }
  return tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The `Literal` aliases and pydantic models of a tau2 data_model.py (the shapes its tools take). */
export function parseDataModel(source: string): PyDataModel {
  const text = source.replace(/\r\n?/g, '\n');
  const literals: Record<string, string[]> = {};
  for (const m of text.matchAll(/^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*Literal\[([^\]]*)\]/gm))
    literals[m[1] as string] = [...(m[2] as string).matchAll(/["']([^"']*)["']/g)].map((v) => v[1] as string);
  const models: Record<string, PyModel> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const cm = /^class\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(([^)]*)\)\s*:/.exec(lines[i] as string);
    if (!cm) continue;
    const fields: PyModel['fields'] = [];
    for (let j = i + 1; j < lines.length && !/^\S/.test(lines[j] as string); j++) {
      const fm = /^ {4}([a-z_][A-Za-z0-9_]*)\s*:\s*([^=]+?)\s*(?:=\s*(.*))?$/.exec(lines[j] as string);
      if (!fm) continue;
      const dm = /description\s*=\s*(?:"([^"]*)"|'([^']*)')/.exec(fm[3] ?? '');
      const desc = dm?.[1] ?? dm?.[2] ?? '';
      fields.push({ name: fm[1] as string, type: fold(fm[2] as string), description: desc });
    }
    models[cm[1] as string] = { fields };
  }
  return { literals, models };
}

/** A Python annotation as JSON Schema, with the data model's literals and models resolved. */
export function schemaOf(type: string, model: PyDataModel, depth = 0): Record<string, unknown> {
  const t = type.trim();
  const list = /^(?:List|list)\[(.*)\]$/.exec(t);
  if (list) return { type: 'array', items: schemaOf(list[1] as string, model, depth + 1) };
  const opt = /^Optional\[(.*)\]$/.exec(t);
  if (opt) return schemaOf(opt[1] as string, model, depth);
  // `FlightInfo | dict`: the model gives the shape; a bare dict adds nothing to it.
  const union = t
    .split('|')
    .map((s) => s.trim())
    .filter((s) => s !== 'dict' && s !== 'None');
  if (union.length === 1 && union[0] !== t) return schemaOf(union[0] as string, model, depth);
  const lit = /^Literal\[(.*)\]$/.exec(t);
  if (lit) return { type: 'string', enum: [...(lit[1] as string).matchAll(/["']([^"']*)["']/g)].map((v) => v[1]) };
  if (t === 'str') return { type: 'string' };
  if (t === 'int') return { type: 'integer' };
  if (t === 'float') return { type: 'number' };
  if (t === 'bool') return { type: 'boolean' };
  const literal = model.literals[t];
  if (literal) return { type: 'string', enum: literal };
  const m = model.models[t];
  if (m && depth < 4) {
    const properties: Record<string, unknown> = {};
    for (const f of m.fields) {
      properties[f.name] = {
        ...schemaOf(f.type, model, depth + 1),
        ...(f.description ? { description: f.description } : {}),
      };
    }
    return { type: 'object', properties, required: m.fields.map((f) => f.name) };
  }
  return {};
}
