// The bundle's JSON Schema (schema/bundle.schema.json) as components of the OpenAPI document. The
// file itself stays what editors and the service validate with; here it is rewritten so that client
// generators read it as intended:
// - its `$defs` become components (`Bundle<Name>`), as `#/$defs/...` does not resolve inside the document;
// - `default`s move into the description: a generator makes a property with a default required,
//   and a client deploying a bundle leaves them out (the service applies them);
// - each `discriminator` gets its `mapping`, so a generated trigger's `kind` is "webhook", not the component's name;
// - `if {type}` / `then` / `else` (which generators skip) becomes a `oneOf` of the two branches.
import { BUNDLE_SCHEMA } from '../bundle-schema.ts';

type JsonObject = Record<string, unknown>;

const PREFIX = 'Bundle';

function componentName(defName: string): string {
  return `${PREFIX}${defName[0]!.toUpperCase()}${defName.slice(1)}`;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function rewrite(value: unknown, defs: JsonObject): unknown {
  if (Array.isArray(value)) return value.map((item) => rewrite(item, defs));
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === '$ref' && typeof inner === 'string' && inner.startsWith('#/$defs/')) {
      out.$ref = `#/components/schemas/${componentName(inner.slice('#/$defs/'.length))}`;
    } else if (key !== 'default') {
      out[key] = rewrite(inner, defs);
    }
  }
  if ('default' in value) {
    const said = `Default: ${JSON.stringify(value.default)}.`;
    out.description = typeof out.description === 'string' ? `${out.description} ${said}` : said;
  }
  if (isObject(out.if) && Object.keys(out.if).length === 1 && 'type' in out.if && out.then && out.else) {
    out.oneOf = [out.then, out.else];
    delete out.if;
    delete out.then;
    delete out.else;
    delete out.type;
  }
  if (isObject(out.discriminator) && Array.isArray(out.oneOf)) {
    out.discriminator = { ...out.discriminator, mapping: mapping(String(out.discriminator.propertyName), out.oneOf, defs) };
  }
  return out;
}

/** `{value: $ref}` for each branch, the value read from the `const` of the branch's discriminating property. */
function mapping(property: string, branches: unknown[], defs: JsonObject): Record<string, string> {
  const entries = branches.map((branch) => {
    const ref = isObject(branch) ? String(branch.$ref) : '';
    const target = defs[Object.keys(defs).find((name) => ref.endsWith(`/${componentName(name)}`)) ?? ''];
    const properties = isObject(target) && isObject(target.properties) ? target.properties : {};
    const discriminating = properties[property];
    if (!isObject(discriminating) || typeof discriminating.const !== 'string') {
      throw new Error(`The bundle schema's discriminator "${property}" needs a const in ${ref}`);
    }
    return [discriminating.const, ref] as const;
  });
  return Object.fromEntries(entries);
}

/** `Bundle` (the root) and one `Bundle<Name>` per `$defs` entry. */
export function bundleComponents(): Record<string, unknown> {
  const { $defs, $schema: _schema, $id: _id, ...root } = BUNDLE_SCHEMA as JsonObject & { $defs: JsonObject };
  const components: Record<string, unknown> = { [PREFIX]: rewrite(root, $defs) };
  for (const [name, schema] of Object.entries($defs)) components[componentName(name)] = rewrite(schema, $defs);
  return components;
}
