// Where in the text a deploy error points: the server names each error by a JSON pointer into the
// bundle (or, for a syntax error, by "line L, column C" in its message); the editor needs a line and
// column of the text the person typed (contract/bundle-positions.ts, which the CLI uses too). Pure, so
// the page and its tests share it.
import { bundleTree, offsetOfPosition, pointerOffset, textPosition } from '../../../contract/bundle-positions.ts';

export interface FieldError {
  path: string;
  message: string;
}

export interface LocatedError extends FieldError {
  /** 1-based; undefined when the text no longer has the place (edited since). */
  line?: number;
  column?: number;
  offset?: number;
}

const LINE_COLUMN = /^line (\d+), column (\d+)/;

export function locateErrors(text: string, errors: FieldError[]): LocatedError[] {
  const tree = bundleTree(text);
  return errors.map((error) => {
    const stated = LINE_COLUMN.exec(error.message);
    if (stated) {
      const line = Number(stated[1]);
      const column = Number(stated[2]);
      return { ...error, line, column, offset: offsetOfPosition(text, line, column) };
    }
    if (!tree) return { ...error };
    return { ...error, ...textPosition(text, pointerOffset(tree, error.path)) };
  });
}
