// Invariant: every rule of the list DSL (grammar, precedence, values, keywords, fields) and every
// error with its exact message and position is pinned here.
import { describe, expect, it } from 'vitest';
import { AppError } from '../../errors/app-error.ts';
import type { ListQueryNode } from './list-query-ast.ts';
import { MAX_LIST_QUERY_DEPTH, parseListQuery } from './list-query-parser.ts';

const str = (field: string, value: string): ListQueryNode => ({ kind: 'string', field, value }) as ListQueryNode;
const bool = (field: string, value: boolean): ListQueryNode => ({ kind: 'boolean', field, value }) as ListQueryNode;
const and = (a: ListQueryNode, b: ListQueryNode, ...more: ListQueryNode[]): ListQueryNode => ({ kind: 'and', operands: [a, b, ...more] });
const or = (a: ListQueryNode, b: ListQueryNode, ...more: ListQueryNode[]): ListQueryNode => ({ kind: 'or', operands: [a, b, ...more] });

function parseError(text: string): AppError {
  try {
    parseListQuery(text);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    const appError = err as AppError;
    expect(appError.code).toBe('VE001');
    expect(appError.status).toBe(400);
    return appError;
  }
  throw new Error(`expected ${JSON.stringify(text)} to be rejected`);
}

const errorMessage = (text: string): string => parseError(text).message;

describe('parseListQuery: comparisons', () => {
  it('parses field=value for each string field', () => {
    for (const field of ['url', 'shortCode', 'shortLinkName', 'smartLink', 'createdBy', 'updatedBy']) {
      expect(parseListQuery(`${field}=abc`)).toEqual(str(field, 'abc'));
    }
  });

  it('keeps string values exactly as written (case, symbols)', () => {
    expect(parseListQuery('shortCode=AbC_-09x')).toEqual(str('shortCode', 'AbC_-09x'));
    expect(parseListQuery('createdBy=api-key:ci-bot')).toEqual(str('createdBy', 'api-key:ci-bot'));
    expect(parseListQuery('createdBy=ann@example.com')).toEqual(str('createdBy', 'ann@example.com'));
  });

  it('parses booleans case-insensitively, bare or quoted', () => {
    expect(parseListQuery('isActive=true')).toEqual(bool('isActive', true));
    expect(parseListQuery('isActive=FALSE')).toEqual(bool('isActive', false));
    expect(parseListQuery('enableCustomMetadata=True')).toEqual(bool('enableCustomMetadata', true));
    expect(parseListQuery('cloakEnabled=fAlSe')).toEqual(bool('cloakEnabled', false));
    expect(parseListQuery('cloakEnabled="true"')).toEqual(bool('cloakEnabled', true));
  });

  it('parses the ChangeSource enum case-insensitively into upper case', () => {
    expect(parseListQuery('createdVia=INTERNAL')).toEqual({ kind: 'enum', field: 'createdVia', value: 'INTERNAL' });
    expect(parseListQuery('createdVia=external')).toEqual({ kind: 'enum', field: 'createdVia', value: 'EXTERNAL' });
    expect(parseListQuery('lastModifiedVia=Internal')).toEqual({ kind: 'enum', field: 'lastModifiedVia', value: 'INTERNAL' });
    expect(parseListQuery('lastModifiedVia="eXtErNaL"')).toEqual({ kind: 'enum', field: 'lastModifiedVia', value: 'EXTERNAL' });
  });

  it('accepts optional whitespace around =', () => {
    for (const text of ['isActive = true', 'isActive= true', 'isActive =true', '  isActive\t=\ntrue  ']) {
      expect(parseListQuery(text)).toEqual(bool('isActive', true));
    }
  });
});

describe('parseListQuery: values', () => {
  it('reads a bare URL with ?, = and & as one value', () => {
    expect(parseListQuery('url=https://x.com/a?b=c&d=e')).toEqual(str('url', 'https://x.com/a?b=c&d=e'));
    expect(parseListQuery('url=https://x.com/a?b=c&d=e AND isActive=true')).toEqual(and(str('url', 'https://x.com/a?b=c&d=e'), bool('isActive', true)));
  });

  it('ends a bare value at an unbalanced ) but keeps balanced parentheses', () => {
    expect(parseListQuery('(url=https://x.com/a?b=c)')).toEqual(str('url', 'https://x.com/a?b=c'));
    expect(parseListQuery('url=https://en.wikipedia.org/wiki/Foo_(bar)')).toEqual(str('url', 'https://en.wikipedia.org/wiki/Foo_(bar)'));
    expect(parseListQuery('(url=https://w.org/Foo_(bar))')).toEqual(str('url', 'https://w.org/Foo_(bar)'));
  });

  it('takes a bare value literally, even a keyword or a quote inside it', () => {
    expect(parseListQuery('shortLinkName=OR')).toEqual(str('shortLinkName', 'OR'));
    expect(parseListQuery('shortLinkName=a"b')).toEqual(str('shortLinkName', 'a"b'));
    expect(parseListQuery('shortLinkName=a=b')).toEqual(str('shortLinkName', 'a=b'));
  });

  it('reads double-quoted values with spaces, keywords and parentheses', () => {
    expect(parseListQuery('shortLinkName="summer sale"')).toEqual(str('shortLinkName', 'summer sale'));
    expect(parseListQuery('shortLinkName="a AND (b) OR c"')).toEqual(str('shortLinkName', 'a AND (b) OR c'));
    expect(parseListQuery('shortLinkName=""')).toEqual(str('shortLinkName', ''));
    expect(parseListQuery('shortLinkName = "x y" ')).toEqual(str('shortLinkName', 'x y'));
  });

  it('unescapes \\" and \\\\ inside quotes', () => {
    expect(parseListQuery(String.raw`shortLinkName="say \"hi\" \\ ok"`)).toEqual(str('shortLinkName', 'say "hi" \\ ok'));
    expect(parseListQuery(String.raw`shortLinkName="\\"`)).toEqual(str('shortLinkName', '\\'));
  });

  it('needs no whitespace between a closing quote and a keyword', () => {
    expect(parseListQuery('shortLinkName="x"AND isActive=true')).toEqual(and(str('shortLinkName', 'x'), bool('isActive', true)));
  });

  it('keeps non-ASCII values', () => {
    expect(parseListQuery('shortLinkName="Sommer-Aktion 😀"')).toEqual(str('shortLinkName', 'Sommer-Aktion 😀'));
  });
});

describe('parseListQuery: operators', () => {
  const a = str('shortCode', 'a');
  const b = str('shortCode', 'b');
  const c = str('shortCode', 'c');

  it('binds AND tighter than OR', () => {
    expect(parseListQuery('shortCode=a OR shortCode=b AND shortCode=c')).toEqual(or(a, and(b, c)));
    expect(parseListQuery('shortCode=a AND shortCode=b OR shortCode=c')).toEqual(or(and(a, b), c));
  });

  it('lets parentheses override precedence', () => {
    expect(parseListQuery('(shortCode=a OR shortCode=b) AND shortCode=c')).toEqual(and(or(a, b), c));
    expect(parseListQuery('shortCode=a AND (shortCode=b OR shortCode=c)')).toEqual(and(a, or(b, c)));
    expect(parseListQuery('((shortCode=a))')).toEqual(a);
  });

  it('collects a chain of the same operator into one node', () => {
    expect(parseListQuery('shortCode=a OR shortCode=b OR shortCode=c')).toEqual(or(a, b, c));
    expect(parseListQuery('shortCode=a AND shortCode=b AND shortCode=c')).toEqual(and(a, b, c));
  });

  it('accepts keywords in any case', () => {
    expect(parseListQuery('shortCode=a and shortCode=b Or shortCode=c')).toEqual(or(and(a, b), c));
    expect(parseListQuery('shortCode=a aNd shortCode=b oR shortCode=c')).toEqual(or(and(a, b), c));
  });

  it('needs no whitespace around parentheses', () => {
    expect(parseListQuery('(shortCode=a)AND(shortCode=b)')).toEqual(and(a, b));
    expect(parseListQuery('(shortCode=a)or(shortCode=b)AND(shortCode=c)')).toEqual(or(a, and(b, c)));
    expect(parseListQuery('shortCode=a AND(shortCode=b)')).toEqual(and(a, b));
    expect(parseListQuery('( shortCode = a )')).toEqual(a);
  });

  it(`accepts ${MAX_LIST_QUERY_DEPTH} levels of parentheses`, () => {
    const text = `${'('.repeat(MAX_LIST_QUERY_DEPTH)}shortCode=a${')'.repeat(MAX_LIST_QUERY_DEPTH)}`;
    expect(parseListQuery(text)).toEqual(a);
  });
});

describe('parseListQuery: errors', () => {
  it('rejects an unknown field at its position (field names are case-sensitive)', () => {
    expect(errorMessage('foo=1')).toBe("Invalid query at position 0: unknown field 'foo'");
    expect(errorMessage('isActive=true AND foo=1')).toBe("Invalid query at position 18: unknown field 'foo'");
    expect(errorMessage('ShortCode=abc')).toBe("Invalid query at position 0: unknown field 'ShortCode'");
    expect(errorMessage('(url=a)OR(short-code=b)')).toBe("Invalid query at position 10: unknown field 'short-code'");
    expect(errorMessage('toString=x')).toBe("Invalid query at position 0: unknown field 'toString'");
    expect(errorMessage('__proto__=x')).toBe("Invalid query at position 0: unknown field '__proto__'");
  });

  it('rejects a bad boolean at the value position', () => {
    expect(errorMessage('isActive=yes')).toBe("Invalid query at position 9: invalid boolean 'yes' for field 'isActive'; expected true or false");
    expect(errorMessage('url=a AND cloakEnabled = 1')).toBe(
      "Invalid query at position 25: invalid boolean '1' for field 'cloakEnabled'; expected true or false",
    );
    expect(errorMessage('enableCustomMetadata=""')).toBe(
      "Invalid query at position 21: invalid boolean '' for field 'enableCustomMetadata'; expected true or false",
    );
  });

  it('rejects an unknown enum value with exactly the spec message', () => {
    expect(errorMessage('createdVia=web')).toBe("Invalid value 'web' for enum ChangeSource");
    expect(errorMessage('isActive=true AND lastModifiedVia="dash board"')).toBe("Invalid value 'dash board' for enum ChangeSource");
    expect(errorMessage('createdVia=ınternal')).toBe("Invalid value 'ınternal' for enum ChangeSource");
  });

  it('rejects an empty expression', () => {
    expect(errorMessage('')).toBe('Invalid query at position 0: empty expression');
    expect(errorMessage('   ')).toBe('Invalid query at position 3: empty expression');
    expect(errorMessage('()')).toBe('Invalid query at position 1: empty expression in parentheses');
    expect(errorMessage('url=a OR ( )')).toBe('Invalid query at position 11: empty expression in parentheses');
  });

  it('rejects unexpected tokens where a comparison should start', () => {
    expect(errorMessage('=abc')).toBe("Invalid query at position 0: unexpected '='; expected a field name or '('");
    expect(errorMessage('url=a OR OR url=b')).toBe("Invalid query at position 9: unexpected 'OR'; expected a field name or '('");
    expect(errorMessage('AND url=a')).toBe("Invalid query at position 0: unexpected 'AND'; expected a field name or '('");
    expect(errorMessage(')')).toBe("Invalid query at position 0: unexpected ')'; expected a field name or '('");
    expect(errorMessage('"url"=a')).toBe(`Invalid query at position 0: unexpected '"url"'; expected a field name or '('`);
    expect(errorMessage('url=a AND')).toBe("Invalid query at position 9: unexpected end of query; expected a field name or '('");
    expect(errorMessage('(')).toBe("Invalid query at position 1: unexpected end of query; expected a field name or '('");
  });

  it('rejects a field without = or without a value', () => {
    expect(errorMessage('url')).toBe("Invalid query at position 3: expected '=' after field 'url' but found end of query");
    expect(errorMessage('url abc')).toBe("Invalid query at position 4: expected '=' after field 'url' but found 'abc'");
    expect(errorMessage('url=')).toBe("Invalid query at position 4: expected a value for field 'url' but found end of query");
    expect(errorMessage('url=  ')).toBe("Invalid query at position 6: expected a value for field 'url' but found end of query");
    expect(errorMessage('(url=)')).toBe("Invalid query at position 5: expected a value for field 'url' but found ')'");
  });

  it('rejects trailing input after a complete expression', () => {
    expect(errorMessage('url=a url=b')).toBe("Invalid query at position 6: unexpected 'url'; expected AND, OR or end of query");
    expect(errorMessage('url=a)')).toBe("Invalid query at position 5: unexpected ')'; expected AND, OR or end of query");
    expect(errorMessage('url=a ANDshortCode=b')).toBe("Invalid query at position 6: unexpected 'ANDshortCode'; expected AND, OR or end of query");
    expect(errorMessage('shortLinkName="x"y')).toBe("Invalid query at position 17: unexpected 'y'; expected AND, OR or end of query");
  });

  it('rejects a missing ) naming where it was expected and the open (', () => {
    expect(errorMessage('(url=a AND url=b')).toBe("Invalid query at position 16: missing ')' to close '(' at position 0");
    expect(errorMessage('url=x AND ((url=a) OR url=b')).toBe("Invalid query at position 27: missing ')' to close '(' at position 10");
    expect(errorMessage('(url=a url=b)')).toBe("Invalid query at position 7: unexpected 'url'; expected AND, OR or ')'");
  });

  it('rejects an unterminated quote at the opening quote', () => {
    expect(errorMessage('url="abc')).toBe('Invalid query at position 4: unterminated quoted value');
    expect(errorMessage(String.raw`url="abc\"`)).toBe('Invalid query at position 4: unterminated quoted value');
    expect(errorMessage('url="abc\\')).toBe('Invalid query at position 4: unterminated quoted value');
    expect(errorMessage('"url')).toBe('Invalid query at position 0: unterminated quoted value');
  });

  it('rejects escapes other than \\" and \\\\ at the backslash', () => {
    expect(errorMessage(String.raw`url="a\nb"`)).toBe(String.raw`Invalid query at position 6: invalid escape '\n' in quoted value; only \" and \\ are allowed`);
  });

  it('reports the first error in the text, not a later one', () => {
    expect(errorMessage('foo=1 AND url="unterminated')).toBe("Invalid query at position 0: unknown field 'foo'");
    expect(errorMessage('isActive=maybe "x')).toBe("Invalid query at position 9: invalid boolean 'maybe' for field 'isActive'; expected true or false");
  });

  it('counts positions in characters, not UTF-16 units', () => {
    expect(errorMessage('shortLinkName="😀" AND foo=1')).toBe("Invalid query at position 22: unknown field 'foo'");
  });

  it('clips long offending text in messages', () => {
    const long = 'x'.repeat(100);
    expect(errorMessage(`${long}=1`)).toBe(`Invalid query at position 0: unknown field '${'x'.repeat(40)}…'`);
  });

  it(`rejects nesting deeper than ${MAX_LIST_QUERY_DEPTH} instead of overflowing the stack`, () => {
    const depth = MAX_LIST_QUERY_DEPTH + 1;
    expect(errorMessage(`${'('.repeat(depth)}url=a${')'.repeat(depth)}`)).toBe(
      `Invalid query at position ${MAX_LIST_QUERY_DEPTH}: parentheses nested deeper than ${MAX_LIST_QUERY_DEPTH} levels`,
    );
    expect(errorMessage('('.repeat(100_000))).toContain('parentheses nested deeper than');
  });
});
