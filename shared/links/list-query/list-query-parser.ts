// Invariant: parseListQuery either returns a valid ListQueryNode for the whole text or throws a
// VE001 AppError. Every syntax, field and boolean error names the 0-based character offset of the
// first offending place in the text (errors are found in source order: tokens are read lazily);
// an unknown enum value gives exactly the spec's `Invalid value '<v>' for enum ChangeSource`.
//
// Grammar (AND binds tighter than OR; keywords are case-insensitive):
//   expr   := term (OR term)*
//   term   := factor (AND factor)*
//   factor := '(' expr ')' | FIELD '=' VALUE
//   VALUE  := '"' (char | '\"' | '\\')* '"'
//           | bare run of characters up to whitespace or an unbalanced ')'
import type { AppError } from '../../errors/app-error.ts';
import { validationFailed } from '../../errors/domain-errors.ts';
import { CHANGE_SOURCES, type ChangeSource } from '../link.ts';
import { isBooleanField, isEnumField, isListQueryField, type ListQueryComparison, type ListQueryNode } from './list-query-ast.ts';

/** Deepest parenthesis nesting accepted; deeper input is a VE001, never a stack overflow. */
export const MAX_LIST_QUERY_DEPTH = 32;

type TokenType = 'lparen' | 'rparen' | 'eq' | 'and' | 'or' | 'word' | 'string' | 'value' | 'eof';

interface Token {
  readonly type: TokenType;
  /** UTF-16 index of the token's first character in the text. */
  readonly pos: number;
  /** The token as written. */
  readonly text: string;
  /** Quoted strings unescaped; otherwise equal to `text`. */
  readonly value: string;
}

const WORD_STOPS = new Set(['(', ')', '=', '"']);
const isSpace = (c: string): boolean => /\s/.test(c);
const MESSAGE_CLIP = 40;

const clip = (s: string): string => (s.length > MESSAGE_CLIP ? `${s.slice(0, MESSAGE_CLIP)}…` : s);

/**
 * Reads tokens on demand. The token after '=' is read as a value (bare or quoted), so bare values
 * may contain '=', '&', '?', '"' and balanced parentheses; elsewhere words stop at ( ) = " and
 * whitespace, and the words AND / OR (any case) are keywords.
 */
class Lexer {
  private pos = 0;
  private previous: TokenType | null = null;

  constructor(private readonly text: string) {}

  next(): Token {
    const token = this.read();
    this.previous = token.type;
    return token;
  }

  private read(): Token {
    const { text } = this;
    while (this.pos < text.length && isSpace(text.charAt(this.pos))) this.pos++;
    const start = this.pos;
    if (start >= text.length) return { type: 'eof', pos: start, text: '', value: '' };
    const c = text.charAt(start);

    if (this.previous === 'eq' && c !== ')') {
      if (c === '"') return this.quoted('value');
      this.pos = this.bareValueEnd(start);
      const raw = text.slice(start, this.pos);
      return { type: 'value', pos: start, text: raw, value: raw };
    }

    if (c === '(' || c === ')' || c === '=') {
      this.pos++;
      return { type: c === '(' ? 'lparen' : c === ')' ? 'rparen' : 'eq', pos: start, text: c, value: c };
    }
    if (c === '"') return this.quoted('string');

    let end = start;
    while (end < text.length && !isSpace(text.charAt(end)) && !WORD_STOPS.has(text.charAt(end))) end++;
    this.pos = end;
    const word = text.slice(start, end);
    const lower = word.toLowerCase();
    const type: TokenType = lower === 'and' ? 'and' : lower === 'or' ? 'or' : 'word';
    return { type, pos: start, text: word, value: word };
  }

  /** End of a bare value: whitespace, or a ')' that closes no '(' opened inside the value. */
  private bareValueEnd(start: number): number {
    const { text } = this;
    let depth = 0;
    let i = start;
    for (; i < text.length; i++) {
      const c = text.charAt(i);
      if (isSpace(c)) break;
      if (c === '(') depth++;
      else if (c === ')') {
        if (depth === 0) break;
        depth--;
      }
    }
    return i;
  }

  private quoted(type: 'value' | 'string'): Token {
    const { text } = this;
    const start = this.pos;
    let value = '';
    let i = start + 1;
    while (i < text.length) {
      const c = text.charAt(i);
      if (c === '"') {
        this.pos = i + 1;
        return { type, pos: start, text: text.slice(start, this.pos), value };
      }
      if (c === '\\') {
        if (i + 1 >= text.length) break;
        const escaped = text.charAt(i + 1);
        if (escaped !== '"' && escaped !== '\\') {
          throw queryError(text, i, `invalid escape '\\${escaped}' in quoted value; only \\" and \\\\ are allowed`);
        }
        value += escaped;
        i += 2;
        continue;
      }
      value += c;
      i++;
    }
    throw queryError(text, start, 'unterminated quoted value');
  }
}

function queryError(text: string, index: number, problem: string): AppError {
  // Report characters (code points), not UTF-16 units, so the offset matches what a user counts.
  const position = Array.from(text.slice(0, index)).length;
  return validationFailed(`Invalid query at position ${position}: ${problem}`);
}

const describe = (t: Token): string => (t.type === 'eof' ? 'end of query' : `'${clip(t.text)}'`);

class Parser {
  private readonly lexer: Lexer;
  private lookahead: Token | null = null;

  constructor(private readonly text: string) {
    this.lexer = new Lexer(text);
  }

  parse(): ListQueryNode {
    const first = this.peek();
    if (first.type === 'eof') throw this.error(first.pos, 'empty expression');
    const node = this.expr(0);
    const rest = this.peek();
    if (rest.type !== 'eof') throw this.error(rest.pos, `unexpected ${describe(rest)}; expected AND, OR or end of query`);
    return node;
  }

  private peek(): Token {
    this.lookahead ??= this.lexer.next();
    return this.lookahead;
  }

  private take(): Token {
    const token = this.peek();
    this.lookahead = null;
    return token;
  }

  private error(index: number, problem: string): AppError {
    return queryError(this.text, index, problem);
  }

  private expr(depth: number): ListQueryNode {
    const first = this.term(depth);
    const rest: ListQueryNode[] = [];
    while (this.peek().type === 'or') {
      this.take();
      rest.push(this.term(depth));
    }
    return combine('or', first, rest);
  }

  private term(depth: number): ListQueryNode {
    const first = this.factor(depth);
    const rest: ListQueryNode[] = [];
    while (this.peek().type === 'and') {
      this.take();
      rest.push(this.factor(depth));
    }
    return combine('and', first, rest);
  }

  private factor(depth: number): ListQueryNode {
    const token = this.take();
    if (token.type === 'word') return this.comparison(token);
    if (token.type !== 'lparen') throw this.error(token.pos, `unexpected ${describe(token)}; expected a field name or '('`);

    if (depth >= MAX_LIST_QUERY_DEPTH) throw this.error(token.pos, `parentheses nested deeper than ${MAX_LIST_QUERY_DEPTH} levels`);
    const inside = this.peek();
    if (inside.type === 'rparen') throw this.error(inside.pos, 'empty expression in parentheses');
    const node = this.expr(depth + 1);
    const close = this.take();
    if (close.type === 'rparen') return node;
    if (close.type === 'eof') {
      const open = Array.from(this.text.slice(0, token.pos)).length;
      throw this.error(close.pos, `missing ')' to close '(' at position ${open}`);
    }
    throw this.error(close.pos, `unexpected ${describe(close)}; expected AND, OR or ')'`);
  }

  private comparison(fieldToken: Token): ListQueryComparison {
    const field = fieldToken.text;
    if (!isListQueryField(field)) throw this.error(fieldToken.pos, `unknown field '${clip(field)}'`);
    const eq = this.take();
    if (eq.type !== 'eq') throw this.error(eq.pos, `expected '=' after field '${field}' but found ${describe(eq)}`);
    const value = this.take();
    if (value.type !== 'value') throw this.error(value.pos, `expected a value for field '${field}' but found ${describe(value)}`);

    if (isBooleanField(field)) {
      const lower = value.value.toLowerCase();
      if (lower !== 'true' && lower !== 'false') {
        throw this.error(value.pos, `invalid boolean '${clip(value.value)}' for field '${field}'; expected true or false`);
      }
      return { kind: 'boolean', field, value: lower === 'true' };
    }
    if (isEnumField(field)) return { kind: 'enum', field, value: parseChangeSource(value.value) };
    return { kind: 'string', field, value: value.value };
  }
}

function combine(kind: 'and' | 'or', first: ListQueryNode, rest: readonly ListQueryNode[]): ListQueryNode {
  const [second, ...more] = rest;
  return second === undefined ? first : { kind, operands: [first, second, ...more] };
}

/** INTERNAL / EXTERNAL in any letter case; anything else is the spec's VE001 message. */
function parseChangeSource(value: string): ChangeSource {
  const lower = value.toLowerCase();
  const found = CHANGE_SOURCES.find((s) => s.toLowerCase() === lower);
  if (found === undefined) throw validationFailed(`Invalid value '${value}' for enum ChangeSource`);
  return found;
}

/** Parses a list filter expression; throws AppError VE001 on any invalid input. */
export function parseListQuery(text: string): ListQueryNode {
  return new Parser(text).parse();
}
