/**
 * The params shape of every method, read from the method table's own types
 * (`MethodParams` in src/contract/methods.ts) with the TypeScript checker, so the RPC fuzzer
 * walks whatever the table declares today — a method added there is fuzzed without a line
 * here. Shapes are plain data: the fuzzer turns them into fast-check arbitraries.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** A JSON value's shape as a param type declares it. */
export type Shape =
  | { kind: 'string' }
  | { kind: 'number' }
  | { kind: 'literal'; values: (string | number | boolean)[] }
  | { kind: 'array'; of: Shape }
  | { kind: 'record'; of: Shape }
  | { kind: 'object'; props: PropShape[] }
  | { kind: 'union'; of: Shape[] }
  | { kind: 'any' };

export interface PropShape {
  name: string;
  optional: boolean;
  shape: Shape;
}

/** The checkout's method table, found upwards from here (this file also runs bundled, from bench/). */
function methodsFile(): string {
  for (let dir = import.meta.dirname; ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'src/contract/methods.ts');
    if (existsSync(file)) return file;
    if (path.dirname(dir) === dir) throw new Error(`src/contract/methods.ts is not above ${import.meta.dirname}`);
  }
}

/** Every method's params shape, by method name, as `MethodParams` declares it. */
export function readMethodShapes(): Map<string, Shape> {
  const file = methodsFile();
  const program = ts.createProgram([file], { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true, noEmit: true, skipLibCheck: true, types: [] });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  if (!source) throw new Error(`cannot read ${file}`);
  const decl = source.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === 'MethodParams');
  if (!decl) throw new Error('MethodParams is not declared in src/contract/methods.ts');
  const shapes = new Map<string, Shape>();
  for (const symbol of checker.getPropertiesOfType(checker.getTypeAtLocation(decl))) {
    shapes.set(symbol.getName(), toShape(checker, checker.getTypeOfSymbolAtLocation(symbol, decl), 0));
  }
  return shapes;
}

/** Deep enough for every shape the table has (up plans: panes → env); cycles stop here. */
const MAX_DEPTH = 6;

function toShape(checker: ts.TypeChecker, type: ts.Type, depth: number): Shape {
  if (depth > MAX_DEPTH) return { kind: 'any' };
  if (type.isUnion()) {
    const members = type.types.filter((t) => !(t.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Null)));
    if (members.length === 1) return toShape(checker, members[0]!, depth);
    if (members.every((t) => t.isLiteral() || t.flags & ts.TypeFlags.BooleanLiteral)) return { kind: 'literal', values: members.map(literalValue) };
    return { kind: 'union', of: members.map((t) => toShape(checker, t, depth + 1)) };
  }
  if (type.flags & (ts.TypeFlags.StringLiteral | ts.TypeFlags.NumberLiteral | ts.TypeFlags.BooleanLiteral)) return { kind: 'literal', values: [literalValue(type)] };
  if (type.flags & ts.TypeFlags.String) return { kind: 'string' };
  if (type.flags & ts.TypeFlags.Number) return { kind: 'number' };
  if (type.flags & ts.TypeFlags.Boolean) return { kind: 'literal', values: [true, false] };
  if (checker.isArrayType(type)) return { kind: 'array', of: toShape(checker, checker.getTypeArguments(type as ts.TypeReference)[0]!, depth + 1) };
  if (type.flags & ts.TypeFlags.Object || type.isIntersection()) {
    const index = checker.getIndexInfoOfType(type, ts.IndexKind.String);
    const props = checker.getPropertiesOfType(type);
    // Record<string, never> (no params) is an object with nothing in it.
    if (index && props.length === 0) return index.type.flags & ts.TypeFlags.Never ? { kind: 'object', props: [] } : { kind: 'record', of: toShape(checker, index.type, depth + 1) };
    return {
      kind: 'object',
      props: props.map((symbol) => ({
        name: symbol.getName(),
        optional: (symbol.flags & ts.SymbolFlags.Optional) !== 0,
        shape: toShape(checker, checker.getTypeOfSymbol(symbol), depth + 1),
      })),
    };
  }
  return { kind: 'any' };
}

function literalValue(type: ts.Type): string | number | boolean {
  if (type.isLiteral()) return type.value as string | number;
  return (type as { intrinsicName?: string }).intrinsicName === 'true';
}
