// The bundle schema with every local $ref replaced by the schema it names. ajv validates through a
// $ref by calling another function and concatenating its errors onto all errors so far, which costs
// time quadratic in the number of errors: a body of a hundred thousand bad items would take minutes.
// With the references inlined, errors are pushed one by one. The schema has no recursion, so
// inlining terminates; a reference that is not local is left alone.

type Schema = Record<string, unknown>;

export function inlineLocalRefs(root: Schema): Schema {
  const resolve = (ref: string): unknown =>
    ref
      .slice(2)
      .split('/')
      .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((node, token) => (node as Schema | undefined)?.[token], root);

  const visit = (node: unknown, depth: number): unknown => {
    if (depth > 64) throw new Error('inlineLocalRefs: the schema refers to itself');
    if (Array.isArray(node)) return node.map((item) => visit(item, depth + 1));
    if (node === null || typeof node !== 'object') return node;
    const { $ref, ...rest } = node as Schema;
    const out: Schema = {};
    for (const [key, value] of Object.entries(rest)) if (key !== '$defs') out[key] = visit(value, depth + 1);
    if (typeof $ref !== 'string' || !$ref.startsWith('#/')) return $ref === undefined ? out : { $ref, ...out };
    // Beside a $ref the schema only puts annotations (description), which may sit on the inlined copy.
    return { ...(visit(resolve($ref), depth + 1) as Schema), ...out };
  };
  return visit(root, 0) as Schema;
}
