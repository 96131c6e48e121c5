// The `code` tool server's run_javascript, through its threads and engine as a turn runs it: what a
// script prints and returns, the workspace it reads, and what a stranger would try, each of which
// must end in a tool error the model can read (never a thrown error) with the sandbox still serving.
import { describe, expect, it } from 'vitest';
import type { Bundle } from '../../contract/bundle.ts';
import { CODE_TOOL_LIMITS } from '../../contract/tool-servers.ts';
import { findBuiltinTool, type ToolOutcome } from '../../activities/tools/index.ts';

const files = {
  'data/orders.csv': 'id,amount\n1,10\n2,32\n',
  'notes.md': '# Notes\n',
};

function bundle(): Bundle {
  return {
    name: 'coder',
    model: { providerId: 'openai-compatible', modelId: 'fake-model' },
    skills: [],
    customTools: [],
    workspaceFiles: files,
    mcps: ['code'],
    triggers: [],
    strictSecrets: false,
    secretGrants: [],
    userChannels: [],
    workflows: {},
  };
}

function run(code: string): Promise<ToolOutcome> {
  const tool = findBuiltinTool(bundle(), 'run_javascript');
  if (!tool) throw new Error('no run_javascript');
  return tool.execute({ code }, { bundle: bundle() });
}

/** The tool error's text, failing the test when the script did not fail. */
async function failure(code: string): Promise<string> {
  const outcome = await run(code);
  expect(outcome.isError, JSON.stringify(outcome.output)).toBe(true);
  expect(typeof outcome.output).toBe('string');
  return outcome.output as string;
}

describe('run_javascript', () => {
  it('returns what the script printed and the value of its last expression', async () => {
    const outcome = await run(
      'const xs = [1, 2, 3];\nconsole.log("sum of", xs.length, "numbers", [1, "two"]);\n({ total: xs.reduce((a, b) => a + b) })',
    );
    expect(outcome).toEqual({ isError: false, output: { stdout: 'sum of 3 numbers [1,"two"]\n', result: { total: 6 } } });
  });

  it('returns what a script with top-level return or await returns, its promise awaited', async () => {
    expect((await run('const v = await Promise.resolve(20);\nreturn v + 1;')).output).toEqual({ stdout: '', result: 21 });
    expect((await run('console.log("nothing returned")')).output).toEqual({ stdout: 'nothing returned\n' });
  });

  it("reads the agent's workspace files, and says which path it could not find", async () => {
    const code = [
      "const rows = workspace.read('./data/orders.csv').trim().split('\\n').slice(1);",
      'console.log(workspace.list().map((file) => file.path + ":" + file.bytes).join(" "));',
      "rows.reduce((sum, row) => sum + Number(row.split(',')[1]), 0)",
    ].join('\n');
    expect((await run(code)).output).toEqual({ stdout: 'data/orders.csv:20 notes.md:8\n', result: 42 });
    expect(await failure("workspace.read('secrets.txt')")).toMatch(
      /^The script threw an error: Error: No file "secrets.txt" in the workspace/,
    );
  });

  it('reports an error the script throws with its line, and what it printed before', async () => {
    const text = await failure('console.log("step 1");\nnull.x;');
    expect(text).toMatch(/^The script threw an error: TypeError: .*\n.*script\.js:2/);
    expect(text).toMatch(/What it printed before:\nstep 1\n$/);
    expect(await failure('let = = 1')).toMatch(/^The code does not parse: SyntaxError/);
  });

  it('refuses code longer than its limit before running anything', async () => {
    expect(await failure(`// ${'x'.repeat(CODE_TOOL_LIMITS.codeChars)}`)).toMatch(/code/);
  });
});

describe('run_javascript against a stranger', () => {
  it('stops an infinite loop at the time limit', async () => {
    expect(await failure('while (true) {}')).toMatch(/^The script ran past the time limit of 5 s and was stopped\.$/);
  });

  it("stops a loop whose every step is one long call, which the engine's own clock does not see, from the worker", async () => {
    expect(await failure('const a = new Array(3e6).fill(0);\nfor (;;) a.indexOf(1);')).toMatch(/time limit of 5 s/);
  });

  it('stops a memory bomb at the memory limit', async () => {
    expect(await failure("let a = []; for (;;) a.push('x'.repeat(1e6))")).toMatch(/^The script ran out of memory \(the limit is 32 MiB\)/);
    expect(await failure('let a = []; for (;;) a.push(new Array(1e5).fill(1))')).toMatch(/ran out of memory/);
  });

  it('stops a script that prints too much, showing the start of its output', async () => {
    const text = await failure("for (let i = 0; ; i++) console.log('line ' + i)");
    expect(text).toMatch(/^The script printed more than 64 KiB, the output limit, and was stopped.*\nline 0\nline 1\n/);
    expect(text.length).toBeLessThan(5000);
    expect(await failure("console.log('y'.repeat(1e6)); 1")).toMatch(/printed more than 64 KiB/);
  });

  it('refuses a result over the limit, showing its start', async () => {
    const text = await failure("'x'.repeat(1e6)");
    expect(text).toMatch(/^The script's result is more than 64 KiB as JSON, the result limit.*Its start: "xxxx/);
    expect(text.length).toBeLessThan(2000);
    expect(await failure('const a = {}; a.self = a; a')).toMatch(/result cannot be turned into JSON: TypeError: circular/);
  });

  it('ends a deep recursion with a stack overflow', async () => {
    expect(await failure('function f() { return f() + 1 }\nf()')).toMatch(
      /^The script overflowed the stack .*InternalError: stack overflow/s,
    );
  });

  it('has no require, process, module import, timers or fetch', async () => {
    expect(await failure("require('fs')")).toMatch(/ReferenceError: 'require' is not defined/);
    expect(await failure('process.env')).toMatch(/ReferenceError: 'process' is not defined/);
    expect(await failure("import('fs')")).toMatch(/could not load module 'fs'/);
    expect(await failure("import fs from 'fs'; fs")).toMatch(/^The code does not parse/);
    expect(await failure('new Promise((resolve) => setTimeout(resolve, 10))')).toMatch(/'setTimeout' is not defined/);
    expect(await failure("fetch('http://169.254.169.254/')")).toMatch(/'fetch' is not defined/);
    expect(await failure('new Promise(() => {})')).toMatch(/a promise that never settles/);
  });

  it('finds no host behind constructors or the global object', async () => {
    expect(await failure("constructor.constructor('return process')()")).toMatch(/'process' is not defined/);
    expect(await failure("this.constructor.constructor('return process')().mainModule")).toMatch(/'process' is not defined/);
    const reach =
      "const g = (function () { return this })() ?? Function('return this')();\n" +
      "['process', 'require', 'module', 'fetch', 'setTimeout', 'WebAssembly', 'std', 'os'].filter((name) => name in g || name in globalThis)";
    expect((await run(reach)).output).toEqual({ stdout: '', result: [] });
  });

  it('lets prototype tricks change only the script itself', async () => {
    const code = [
      "Object.prototype.toString = () => 'pwned';",
      'JSON.stringify = () => \'"pwned"\';',
      "String.prototype.slice = () => 'pwned';",
      "Array.prototype.join = () => 'pwned';",
      "console.log('still', 'printed');",
      '({ answer: 42 })',
    ].join('\n');
    expect((await run(code)).output).toEqual({ stdout: 'still printed\n', result: { answer: 42 } });
    // And nothing of it is left for the next script.
    expect((await run("[String({}), JSON.stringify([1]), 'abc'.slice(1)]")).output).toEqual({
      stdout: '',
      result: ['[object Object]', '[1]', 'bc'],
    });
  });
});
