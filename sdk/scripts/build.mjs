// Builds the package into dist/ with the repository's own TypeScript: JavaScript and declarations
// of src/. The SDK takes types from the repository's contract/; its declarations would name contract
// files that are not in the package, so contract.d.ts is written here instead, with every type the
// SDK takes from the contract: hand-written ones from the contract's own declarations (copied into
// dist/contract/), and those derived from JSON Schemas (json-schema-to-ts, not a dependency of the
// package) printed out in full. The few pure contract modules the SDK runs (bundled-contract.mjs)
// are copied into dist/contract/ as JavaScript, and the SDK's imports of them pointed there.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import process from 'node:process';
import console from 'node:console';
import ts from 'typescript';
import { BUNDLED_CONTRACT_MODULES } from './bundled-contract.mjs';

const sdkDir = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const rootDir = path.dirname(sdkDir);
const finalDir = path.join(sdkDir, 'dist');
// Built aside, then swapped in whole: a program or test importing dist/ meanwhile (another build runs
// in `npm pack`, in a workspace's prepare) never finds it half written or gone. Under a `dist/` the
// repository ignores.
const buildRoot = path.join(sdkDir, `.build-${process.pid}`);
const distDir = path.join(buildRoot, 'dist');
const stagingDir = path.join(distDir, '.tsc');
/** `from '<x>'`, `import '<x>'` and `import('<x>')` in emitted JavaScript or declarations. */
const IMPORT_SPECIFIER = /\bfrom\s*['"]([^'"]+)['"]|\bimport\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

fs.rmSync(buildRoot, { recursive: true, force: true });
const config = ts.getParsedCommandLineOfConfigFile(
  path.join(sdkDir, 'tsconfig.json'),
  {},
  { ...ts.sys, onUnRecoverableConfigFileDiagnostic: report },
);
const program = ts.createProgram({ rootNames: config.fileNames, options: { ...config.options, outDir: stagingDir } });
const diagnostics = ts
  .getPreEmitDiagnostics(program)
  .filter((diagnostic) => diagnostic.file?.fileName.startsWith(path.join(sdkDir, 'src')));
for (const diagnostic of diagnostics) report(diagnostic);
const emitted = program.emit();
if (emitted.emitSkipped || diagnostics.length > 0) {
  for (const diagnostic of emitted.diagnostics) report(diagnostic);
  fs.rmSync(buildRoot, { recursive: true, force: true });
  process.exit(1);
}

// dist/<file> from src/<file>; the contract's declarations under dist/contract/, with the JavaScript
// of the contract modules the SDK runs.
const stagedContract = path.join(stagingDir, 'contract');
const runContract = contractModulesRun(walk(path.join(stagingDir, 'sdk', 'src')).filter((file) => file.endsWith('.js')));
moveTree(path.join(stagingDir, 'sdk', 'src'), distDir, () => true);
moveTree(stagedContract, path.join(distDir, 'contract'), (file) => file.endsWith('.d.ts') || runContract.has(file));
fs.rmSync(stagingDir, { recursive: true, force: true });
fs.writeFileSync(path.join(distDir, 'contract.d.ts'), contractDeclarations());
for (const file of walk(distDir).filter((file) => file.endsWith('.d.ts') || file.endsWith('.js'))) {
  // Declarations keep the source's `.ts` specifiers; a consumer resolves the emitted `.js` names.
  let text = fs.readFileSync(file, 'utf8').replace(/(from\s+['"]\.{1,2}\/[^'"]*?)\.ts(['"])/g, '$1.js$2');
  if (!isUnder(file, path.join(distDir, 'contract')))
    text = text.replace(IMPORT_SPECIFIER, (whole, ...found) => {
      // src/ reaches the contract at ../../contract/; in dist/ it sits at ./contract/.
      const specifier = found.slice(0, 3).find((candidate) => candidate !== undefined);
      const source = path.join(sdkDir, 'src', path.relative(distDir, path.dirname(file)));
      const target = path.resolve(source, specifier);
      if (!specifier.startsWith('.') || !isUnder(target, path.join(rootDir, 'contract'))) return whole;
      const moved = path.join(distDir, 'contract', path.relative(path.join(rootDir, 'contract'), target));
      const relative = path.relative(path.dirname(file), moved).split(path.sep).join('/');
      return whole.replace(specifier, relative.startsWith('.') ? relative : `./${relative}`);
    });
  fs.writeFileSync(file, text);
}
const contractDir = path.join(distDir, 'contract');
for (const file of walk(contractDir)) {
  // Contract declarations that need json-schema-to-ts are not used by the package: leave them out.
  if (fs.readFileSync(file, 'utf8').includes('json-schema-to-ts') || /from '\.\/operation\.js'/.test(fs.readFileSync(file, 'utf8')))
    fs.rmSync(file);
}
swapIntoPlace();
// To stderr: `npm pack --json` prints its JSON on stdout, after the prepare script ran.
console.error(`@agent-service/sdk built into ${path.relative(rootDir, finalDir)}/`);

/** Renames the build over dist/: the old one moved aside first (a rename cannot replace a full folder). */
function swapIntoPlace() {
  const old = path.join(buildRoot, 'dist-old');
  for (let attempt = 0; ; attempt++) {
    try {
      fs.renameSync(finalDir, old);
    } catch (error) {
      if (error.code !== 'ENOENT') throw error;
    }
    try {
      fs.renameSync(distDir, finalDir);
      break;
    } catch (error) {
      // Another build swapped its own in between: move that one aside too, a few times at most.
      if (!['ENOTEMPTY', 'EEXIST'].includes(error.code) || attempt === 5) throw error;
      fs.rmSync(old, { recursive: true, force: true });
    }
  }
  fs.rmSync(buildRoot, { recursive: true, force: true });
}

function contractDeclarations() {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(path.join(sdkDir, 'src', 'contract.ts'));
  const module = checker.getSymbolAtLocation(source);
  const lines = ['// Written by scripts/build.mjs: the types of the service contract this package uses (see src/contract.ts).'];
  const reexports = new Map();
  for (const exported of checker.getExportsOfModule(module)) {
    const target = checker.getAliasedSymbol(exported);
    const declaration = target.declarations?.[0];
    const file = declaration?.getSourceFile().fileName ?? '';
    const relative = path.relative(path.join(rootDir, 'contract'), file).replace(/\.ts$/, '.js');
    if (!derivedFromSchemas(declaration)) {
      reexports.set(relative, [...(reexports.get(relative) ?? []), exported.name]);
      continue;
    }
    const type = checker.getDeclaredTypeOfSymbol(target);
    const flags = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.InTypeAlias | ts.TypeFormatFlags.UseSingleQuotesForStringLiteralType;
    lines.push(`export type ${exported.name} = ${checker.typeToString(type, declaration, flags)};`);
  }
  for (const [file, names] of reexports) lines.splice(1, 0, `export type { ${names.join(', ')} } from './contract/${file}';`);
  const imported = [...reexports.entries()].flatMap(([file, names]) => names.map((name) => [file, name]));
  // Expanded types may name the hand-written ones (an AgentDetail's bundle is a Bundle).
  lines.splice(
    1,
    0,
    ...[...new Set(imported.map(([file]) => file))].map(
      (file) =>
        `import type { ${imported
          .filter(([f]) => f === file)
          .map(([, name]) => name)
          .join(', ')} } from './contract/${file}';`,
    ),
  );
  return `${lines.join('\n')}\n`;
}

/** Whether a type alias is derived from a JSON Schema (its text names the contract's schema helpers). */
function derivedFromSchemas(declaration) {
  if (!declaration || !ts.isTypeAliasDeclaration(declaration)) return false;
  return /\b(Sent|Received|ResponseOf|BodyOf|QueryOf|FromSchema)</.test(declaration.type.getText());
}

function runtimeImports(file) {
  return [...fs.readFileSync(file, 'utf8').matchAll(IMPORT_SPECIFIER)].map((match) => match.slice(1).find((found) => found !== undefined));
}

/**
 * The staged contract JavaScript the SDK runs: the listed modules it imports, and what they import in
 * turn. One not listed, or a listed one importing anything but contract modules (a package, a Node
 * module, another folder), fails the build: the package must run alone, in a browser too.
 */
function contractModulesRun(sdkFiles) {
  const found = new Set();
  const visit = (file, fromSdk) => {
    const name = path.relative(stagedContract, file).replace(/\.js$/, '.ts');
    // Checked before the visited ones are skipped: a module bundled as another's import is still
    // not one the SDK may import itself.
    if (fromSdk && !BUNDLED_CONTRACT_MODULES.includes(name))
      fail(`The SDK runs contract/${name}, which is not in scripts/bundled-contract.mjs`);
    if (found.has(file)) return;
    found.add(file);
    for (const specifier of runtimeImports(file)) {
      const target = path.resolve(path.dirname(file), specifier);
      if (!specifier.startsWith('.') || !isUnder(target, stagedContract))
        fail(`contract/${name} imports "${specifier}": the SDK bundles only contract modules that import nothing but the contract`);
      visit(target, false);
    }
  };
  for (const file of sdkFiles) {
    for (const specifier of runtimeImports(file)) {
      const target = path.resolve(path.dirname(file), specifier);
      if (specifier.startsWith('.') && isUnder(target, stagedContract)) visit(target, true);
    }
  }
  return found;
}

function isUnder(file, dir) {
  const relative = path.relative(dir, file);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}

function fail(message) {
  console.error(message);
  fs.rmSync(buildRoot, { recursive: true, force: true });
  process.exit(1);
}

function moveTree(from, to, keep) {
  for (const file of walk(from)) {
    if (!keep(file)) continue;
    const target = path.join(to, path.relative(from, file));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.renameSync(file, target);
  }
}

function walk(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? walk(full) : [full];
  });
}

function report(diagnostic) {
  console.error(
    ts.formatDiagnosticsWithColorAndContext([diagnostic], {
      getCanonicalFileName: (f) => f,
      getCurrentDirectory: () => rootDir,
      getNewLine: () => '\n',
    }),
  );
}
