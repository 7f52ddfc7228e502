/**
 * The structure rules of packages/*\/src (docs/decisions/repository-and-tests.md, issue 24), read
 * from the source with the TypeScript compiler API:
 *
 * - `file-lines`: no file over {@link MAX_FILE_LINES} lines;
 * - `function-lines`: no function, method, accessor or arrow function over {@link MAX_FUNCTION_LINES}
 *   lines (from its first token to its last, nested functions included);
 * - `import-cycle`: no file on an import cycle, counting every import (type-only ones too) between
 *   files of packages/*\/src, across packages through `@svc-licensing/<name>[/<entry>]`;
 * - `internal-imports-public`: no file in an `_internal/` folder importing a module of its own
 *   package that is not in an `_internal/` folder.
 *
 * `structure.test.ts` runs it in the test command (and so in CI); `node --import tsx
 * scripts/structure.ts` prints what it finds.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

export const MAX_FILE_LINES = 300;
export const MAX_FUNCTION_LINES = 120;

export type Rule = 'file-lines' | 'function-lines' | 'import-cycle' | 'internal-imports-public';

/** One file breaking one rule, with what makes it break it. */
export interface Offense {
  /** Relative to the repository root, with `/`. */
  file: string;
  rule: Rule;
  /** Human-readable details: the line count, the long functions, the cycle, the imports. */
  detail: string;
}

interface ImportEdge {
  to: string;
  typeOnly: boolean;
  line: number;
}

const SOURCE = /\.(ts|tsx|mts|cts)$/;
const DECLARATION = /\.d\.(ts|mts|cts)$/;

function walk(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? walk(path) : SOURCE.test(name) && !DECLARATION.test(name) ? [path] : [];
    });
}

/** The source files of every package's src folder, absolute paths. */
export function sourceFiles(root: string): string[] {
  const packages = join(root, 'packages');
  return readdirSync(packages)
    .sort()
    .filter((name) => existsSync(join(packages, name, 'src')))
    .flatMap((name) => walk(join(packages, name, 'src')));
}

const lineOf = (file: ts.SourceFile, pos: number) => file.getLineAndCharacterOfPosition(pos).line + 1;

/** Lines as an editor counts them: a final newline does not start another line. */
export function countLines(text: string): number {
  if (text === '') return 0;
  const lines = text.split('\n').length;
  return text.endsWith('\n') ? lines - 1 : lines;
}

function functionName(node: ts.Node, file: ts.SourceFile): string {
  const named = (n: ts.Node): string | undefined => {
    const name = (n as { name?: ts.Node }).name;
    return name && (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isPrivateIdentifier(name)) ? name.text : undefined;
  };
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const own = named(node);
  if (own) return own;
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))) {
    const name = named(parent);
    if (name) return name;
  }
  return `<anonymous at line ${lineOf(file, node.getStart(file))}>`;
}

/** Functions with a body (declarations, expressions, arrows, methods, constructors, accessors) and their length in lines. */
export function functionLengths(file: ts.SourceFile): { name: string; line: number; lines: number }[] {
  const found: { name: string; line: number; lines: number }[] = [];
  const visit = (node: ts.Node) => {
    if (
      (ts.isFunctionDeclaration(node) ||
        ts.isFunctionExpression(node) ||
        ts.isArrowFunction(node) ||
        ts.isMethodDeclaration(node) ||
        ts.isConstructorDeclaration(node) ||
        ts.isGetAccessorDeclaration(node) ||
        ts.isSetAccessorDeclaration(node)) &&
      node.body !== undefined
    ) {
      const first = lineOf(file, node.getStart(file));
      found.push({ name: functionName(node, file), line: first, lines: lineOf(file, node.getEnd()) - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** Module specifiers of a file's imports and re-exports (static, `import()`, `require()`), with whether they bring only types. */
export function importsOf(file: ts.SourceFile): { specifier: string; typeOnly: boolean; line: number }[] {
  const found: { specifier: string; typeOnly: boolean; line: number }[] = [];
  const add = (literal: ts.Expression | undefined, typeOnly: boolean) => {
    if (literal && ts.isStringLiteralLike(literal)) found.push({ specifier: literal.text, typeOnly, line: lineOf(file, literal.getStart(file)) });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const bindings = clause?.namedBindings;
      const everyNameTyped =
        clause !== undefined && clause.name === undefined && bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((e) => e.isTypeOnly);
      add(node.moduleSpecifier, clause?.isTypeOnly === true || everyNameTyped);
    } else if (ts.isExportDeclaration(node)) {
      const clause = node.exportClause;
      const everyNameTyped = clause !== undefined && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((e) => e.isTypeOnly);
      add(node.moduleSpecifier, node.isTypeOnly || everyNameTyped);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node.moduleReference.expression, node.isTypeOnly);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node.argument.literal as ts.Expression, true);
    } else if (ts.isCallExpression(node) && (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require'))) {
      add(node.arguments[0], false);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

const CANDIDATES = ['', '.ts', '.tsx', '.mts', '.cts', '/index.ts', '/index.tsx'];

/** The source file an import names, if it is one of packages/*\/src (relative, or `@svc-licensing/<name>[/<entry>]`). */
export function resolveImport(root: string, from: string, specifier: string): string | null {
  let base: string;
  if (specifier.startsWith('.')) {
    base = resolve(dirname(from), specifier).replace(/\.(c|m)?jsx?$/, '');
  } else {
    const match = /^@svc-licensing\/([^/]+)(?:\/(.+))?$/.exec(specifier);
    if (!match) return null;
    base = join(root, 'packages', match[1]!, 'src', match[2] ?? 'index');
  }
  for (const suffix of CANDIDATES) {
    const path = base + suffix;
    if (SOURCE.test(path) && existsSync(path) && statSync(path).isFile()) return path;
  }
  return null;
}

/** Strongly connected components of more than one file (or a file importing itself), by Tarjan's algorithm. */
export function cycles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const connect = (node: string) => {
    index.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        connect(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.sort());
    }
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) connect(node);
  return found;
}

/** One shortest way from `start` back to itself inside `members`, to show a cycle in a failure message. */
function loopThrough(graph: Map<string, string[]>, start: string, members: Set<string>): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const next of graph.get(node) ?? []) {
      if (!members.has(next)) continue;
      if (next === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(previous.get(path[0]!)!);
        return [...path, start];
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start];
}

const packageOf = (rel: string) => rel.split('/')[1]!;
const isInternal = (rel: string) => rel.split('/').includes('_internal');

/** Every offense in `root`'s packages/*\/src, sorted by file then rule. */
export function checkStructure(root: string): Offense[] {
  const offenses: Offense[] = [];
  const rel = (path: string) => relative(root, path).split(sep).join('/');
  const graph = new Map<string, string[]>();
  const edges = new Map<string, ImportEdge[]>();
  for (const path of sourceFiles(root)) {
    const text = readFileSync(path, 'utf8');
    const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, path.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
    const name = rel(path);
    const lines = countLines(text);
    if (lines > MAX_FILE_LINES) offenses.push({ file: name, rule: 'file-lines', detail: `${lines} lines (at most ${MAX_FILE_LINES})` });
    const long = functionLengths(file).filter((f) => f.lines > MAX_FUNCTION_LINES);
    if (long.length > 0) {
      offenses.push({ file: name, rule: 'function-lines', detail: long.map((f) => `${f.name} (line ${f.line}) is ${f.lines} lines`).join('; ') + ` (at most ${MAX_FUNCTION_LINES})` });
    }
    const own: ImportEdge[] = [];
    for (const { specifier, typeOnly, line } of importsOf(file)) {
      const to = resolveImport(root, path, specifier);
      if (to !== null) own.push({ to: rel(to), typeOnly, line });
    }
    edges.set(name, own);
    graph.set(name, [...new Set(own.map((e) => e.to))]);
  }
  for (const component of cycles(graph)) {
    const members = new Set(component);
    for (const file of component) {
      offenses.push({ file, rule: 'import-cycle', detail: loopThrough(graph, file, members).join(' -> ') });
    }
  }
  for (const [file, own] of edges) {
    if (!isInternal(file)) continue;
    const upward = own.filter((e) => packageOf(e.to) === packageOf(file) && !isInternal(e.to));
    if (upward.length > 0) {
      offenses.push({ file, rule: 'internal-imports-public', detail: upward.map((e) => `line ${e.line} imports ${e.to}${e.typeOnly ? ' (types only)' : ''}`).join('; ') });
    }
  }
  return offenses.sort((a, b) => (a.file === b.file ? a.rule.localeCompare(b.rule) : a.file < b.file ? -1 : 1));
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  const found = checkStructure(resolve(dirname(new URL(import.meta.url).pathname), '..'));
  for (const o of found) console.log(`${o.rule.padEnd(24)} ${o.file}\n${' '.repeat(25)}${o.detail}`);
  console.log(`${found.length} offenses`);
}
