// Prompts and questions of workflow-graph nodes may use the run's input and what earlier nodes
// gave: `{{input}}`, `{{nodes.<id>.output}}` (an agent node's reply), `{{nodes.<id>.choice}}` and
// `{{nodes.<id>.note}}` (an approval node's answer). A reference to something not there (yet)
// becomes empty text. Pure: the graph workflow renders in workflow code.

export interface NodeOutput {
  output?: string;
  choice?: string;
  note?: string | null;
  expired?: boolean;
}

const REFERENCE = /\{\{\s*(input|nodes\.([A-Za-z0-9][A-Za-z0-9_-]{0,63})\.(output|choice|note))\s*\}\}/g;

export function renderTemplate(template: string, context: { input: string | null; outputs: Record<string, NodeOutput> }): string {
  return template.replace(REFERENCE, (_whole, what: string, nodeId: string | undefined, field: keyof NodeOutput | undefined) => {
    if (what === 'input') return context.input ?? '';
    const value = Object.hasOwn(context.outputs, nodeId!) ? context.outputs[nodeId!]![field!] : undefined;
    return typeof value === 'string' ? value : '';
  });
}

/** The node ids a template refers to, for deploy-time checks. */
export function templateNodeReferences(template: string): string[] {
  return [...template.matchAll(REFERENCE)].flatMap((match) => (match[2] ? [match[2]] : []));
}
