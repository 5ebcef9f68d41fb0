// Invariant: the head scanner reads an HTML document's <meta> tags and its first <title> in time
// linear in what it is given, and never reads past the end of <head> (a </head> or <body> tag) or
// past the first HEAD_LIMIT characters, whichever comes first. It uses no regular expression over
// the document: it is a resumable state machine whose cursor only moves forward (indexOf and
// single-character steps), so a write costs time proportional to that write alone, however the
// document is cut into chunks. Comments, <script>, <style>, <template> and <textarea> contents are
// skipped; a tag or quoted value still open at the end is dropped.

/** The most of a document that is ever scanned (characters; the fetcher reads as many bytes). */
export const HEAD_LIMIT = 64 * 1024;
/** The only <meta> attributes anybody reads. */
const META_ATTRIBUTES = new Set(['property', 'name', 'content']);
/** A cheap first look (lower-cased first letter and length) before an attribute name is sliced. */
const isWantedName = (first: number, length: number): boolean =>
  (first === 0x70 && length === 8) || (first === 0x6e && length === 4) || (first === 0x63 && length === 7);
/** Elements whose content is text up to their end tag, never markup. */
const RAW_TEXT = new Set(['script', 'style', 'template', 'textarea', 'title']);

export interface HeadHandlers {
  /** A complete <meta> tag, with its property, name and content attributes (first of each wins). */
  meta(attributes: ReadonlyMap<string, string>): void;
  /** The raw (undecoded) text of the first complete <title> element. */
  title(text: string): void;
}

type State =
  | 'text'
  | 'tag-open'
  | 'end-tag-open'
  | 'markup'
  | 'comment'
  | 'bogus'
  | 'tag-name'
  | 'before-attribute-name'
  | 'attribute-name'
  | 'after-attribute-name'
  | 'before-attribute-value'
  | 'quoted-value'
  | 'unquoted-value'
  | 'raw-text';

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;
const isAsciiLetter = (c: number): boolean => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
const GT = 0x3e;
const SLASH = 0x2f;
const EQUALS = 0x3d;

export class HeadScanner {
  private text = '';
  private i = 0;
  private state: State = 'text';
  private finished = false;
  private titleSeen = false;
  // The tag being read.
  private isEndTag = false;
  private nameStart = 0;
  private tagName = '';
  private attributes: Map<string, string> | null = null;
  private attributeStart = 0;
  private attributeName: string | null = null;
  private valueStart = 0;
  private quote = '"';
  // Where a search for a terminator resumes (comments, raw text).
  private searchFrom = 0;
  private rawStart = 0;

  constructor(private readonly on: HeadHandlers) {}

  /** True once the scanner needs no more input: the head ended, or HEAD_LIMIT characters were read. */
  get done(): boolean {
    return this.finished;
  }

  /** Feeds the next piece of the document; returns `done`. */
  write(chunk: string): boolean {
    if (this.finished) return true;
    const room = HEAD_LIMIT - this.text.length;
    this.text += chunk.length > room ? chunk.slice(0, room) : chunk;
    this.run();
    if (this.text.length >= HEAD_LIMIT) this.finished = true;
    return this.finished;
  }

  /** The document ended: whatever is still open is dropped. */
  end(): void {
    this.finished = true;
  }

  private run(): void {
    const t = this.text;
    const n = t.length;
    let i = this.i;
    scan: while (!this.finished && i < n) {
      switch (this.state) {
        case 'text': {
          const lt = t.indexOf('<', i);
          if (lt === -1) {
            i = n;
            break scan;
          }
          i = lt + 1;
          this.state = 'tag-open';
          break;
        }
        case 'tag-open': {
          const c = t.charCodeAt(i);
          if (c === 0x21 /* ! */) {
            i++;
            this.state = 'markup';
          } else if (c === SLASH) {
            i++;
            this.state = 'end-tag-open';
          } else if (isAsciiLetter(c)) {
            this.startTag(i, false);
          } else if (c === 0x3f /* ? */) {
            this.state = 'bogus';
          } else {
            this.state = 'text'; // a lone '<' is text
          }
          break;
        }
        case 'end-tag-open': {
          const c = t.charCodeAt(i);
          if (isAsciiLetter(c)) this.startTag(i, true);
          else if (c === GT) {
            i++;
            this.state = 'text';
          } else this.state = 'bogus';
          break;
        }
        case 'markup': {
          if (n - i < 2) break scan; // need two characters to tell a comment
          if (t.charCodeAt(i) === 0x2d && t.charCodeAt(i + 1) === 0x2d) {
            this.searchFrom = i; // so that <!--> and <!---> close at once
            i += 2;
            this.state = 'comment';
          } else this.state = 'bogus'; // doctype, CDATA, bogus comments
          break;
        }
        case 'comment': {
          const close = t.indexOf('-->', this.searchFrom);
          if (close === -1) {
            this.searchFrom = Math.max(this.searchFrom, n - 2);
            i = n;
            break scan;
          }
          i = close + 3;
          this.state = 'text';
          break;
        }
        case 'bogus': {
          const gt = t.indexOf('>', i);
          if (gt === -1) {
            i = n;
            break scan;
          }
          i = gt + 1;
          this.state = 'text';
          break;
        }
        case 'tag-name': {
          while (i < n && !isTagNameEnd(t.charCodeAt(i))) i++;
          if (i >= n) break scan;
          this.tagName = t.slice(this.nameStart, i).toLowerCase();
          if ((this.isEndTag && this.tagName === 'head') || (!this.isEndTag && this.tagName === 'body')) {
            this.finished = true;
            break scan;
          }
          this.attributes = !this.isEndTag && this.tagName === 'meta' ? new Map() : null;
          this.state = 'before-attribute-name';
          break;
        }
        case 'before-attribute-name': {
          while (i < n && (isSpace(t.charCodeAt(i)) || t.charCodeAt(i) === SLASH)) i++;
          if (i >= n) break scan;
          if (t.charCodeAt(i) === GT) {
            i++;
            this.emitTag(i);
            break;
          }
          this.attributeStart = i;
          i++; // the first character belongs to the name whatever it is ('=' included, as in HTML)
          this.state = 'attribute-name';
          break;
        }
        case 'attribute-name': {
          while (i < n && !isAttributeNameEnd(t.charCodeAt(i))) i++;
          if (i >= n) break scan;
          const length = i - this.attributeStart;
          this.attributeName =
            this.attributes !== null && isWantedName(t.charCodeAt(this.attributeStart) | 0x20, length) ? t.slice(this.attributeStart, i).toLowerCase() : null;
          this.state = 'after-attribute-name';
          break;
        }
        case 'after-attribute-name': {
          while (i < n && isSpace(t.charCodeAt(i))) i++;
          if (i >= n) break scan;
          if (t.charCodeAt(i) === EQUALS) {
            i++;
            this.state = 'before-attribute-value';
          } else {
            this.keep('');
            this.state = 'before-attribute-name';
          }
          break;
        }
        case 'before-attribute-value': {
          while (i < n && isSpace(t.charCodeAt(i))) i++;
          if (i >= n) break scan;
          const c = t.charCodeAt(i);
          if (c === 0x22 || c === 0x27) {
            this.quote = c === 0x22 ? '"' : "'";
            i++;
            this.valueStart = i;
            this.state = 'quoted-value';
          } else if (c === GT) {
            this.keep('');
            i++;
            this.emitTag(i);
          } else {
            this.valueStart = i;
            this.state = 'unquoted-value';
          }
          break;
        }
        case 'quoted-value': {
          const close = t.indexOf(this.quote, i);
          if (close === -1) {
            i = n;
            break scan;
          }
          this.keep(this.attributeName === null ? '' : t.slice(this.valueStart, close));
          i = close + 1;
          this.state = 'before-attribute-name';
          break;
        }
        case 'unquoted-value': {
          while (i < n && !isSpace(t.charCodeAt(i)) && t.charCodeAt(i) !== GT) i++;
          if (i >= n) break scan;
          this.keep(this.attributeName === null ? '' : t.slice(this.valueStart, i));
          this.state = 'before-attribute-name';
          break;
        }
        case 'raw-text': {
          const close = this.findEndTag(t, n);
          if (close === null) {
            i = n;
            break scan;
          }
          if (close === -1) break scan; // a possible end tag is cut: wait for more
          if (this.tagName === 'title' && !this.titleSeen) {
            this.titleSeen = true;
            this.on.title(t.slice(this.rawStart, close));
          }
          i = close + 2;
          this.startTag(i, true);
          break;
        }
      }
    }
    this.i = i;
  }

  private startTag(nameStart: number, isEnd: boolean): void {
    this.isEndTag = isEnd;
    this.nameStart = nameStart;
    this.state = 'tag-name';
  }

  private keep(value: string): void {
    const name = this.attributeName;
    if (this.attributes === null || name === null || !META_ATTRIBUTES.has(name) || this.attributes.has(name)) return;
    this.attributes.set(name, value);
  }

  /** The tag ended at `after` (just past its '>'). */
  private emitTag(after: number): void {
    if (this.attributes !== null) this.on.meta(this.attributes);
    this.attributes = null;
    if (!this.isEndTag && RAW_TEXT.has(this.tagName)) {
      this.rawStart = after;
      this.searchFrom = after;
      this.state = 'raw-text';
    } else this.state = 'text';
  }

  /**
   * Index of the '</' that closes the current raw text element (ASCII case-insensitive); null when
   * there is none yet; -1 when one may be cut by the end of the text. Resumes where it stopped.
   */
  private findEndTag(t: string, n: number): number | null {
    const name = this.tagName;
    for (;;) {
      const at = t.indexOf('</', this.searchFrom);
      if (at === -1) {
        this.searchFrom = Math.max(this.searchFrom, n - 1);
        return null;
      }
      const end = at + 2 + name.length;
      if (end >= n) {
        this.searchFrom = at;
        return -1;
      }
      this.searchFrom = at + 2;
      if (t.slice(at + 2, end).toLowerCase() === name && isTagNameEnd(t.charCodeAt(end))) return at;
    }
  }
}

function isTagNameEnd(c: number): boolean {
  return isSpace(c) || c === SLASH || c === GT;
}

function isAttributeNameEnd(c: number): boolean {
  return isSpace(c) || c === SLASH || c === GT || c === EQUALS;
}
