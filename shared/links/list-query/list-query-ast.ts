// Invariant: a ListQueryNode is always a valid filter. Each comparison names a known field with
// a value already checked against that field's type (boolean, or an upper-case ChangeSource), and
// every AND/OR node has at least two operands, so no later stage has to re-validate it.
import type { ChangeSource } from '../link.ts';

/** The list DSL's fields with the type of value each one takes (names as the spec spells them). */
export const LIST_QUERY_FIELDS = {
  url: 'string',
  shortCode: 'string',
  shortLinkName: 'string',
  smartLink: 'string',
  isActive: 'boolean',
  enableCustomMetadata: 'boolean',
  cloakEnabled: 'boolean',
  createdBy: 'string',
  updatedBy: 'string',
  createdVia: 'enum',
  lastModifiedVia: 'enum',
} as const;

export type ListQueryField = keyof typeof LIST_QUERY_FIELDS;
type FieldsOfType<T> = { [F in ListQueryField]: (typeof LIST_QUERY_FIELDS)[F] extends T ? F : never }[ListQueryField];
export type StringField = FieldsOfType<'string'>;
export type BooleanField = FieldsOfType<'boolean'>;
export type EnumField = FieldsOfType<'enum'>;

export interface StringComparison {
  readonly kind: 'string';
  readonly field: StringField;
  readonly value: string;
}

export interface BooleanComparison {
  readonly kind: 'boolean';
  readonly field: BooleanField;
  readonly value: boolean;
}

export interface EnumComparison {
  readonly kind: 'enum';
  readonly field: EnumField;
  readonly value: ChangeSource;
}

export type ListQueryComparison = StringComparison | BooleanComparison | EnumComparison;

/** At least two operands; a single operand is represented by the operand itself. */
export type ListQueryOperands = readonly [ListQueryNode, ListQueryNode, ...ListQueryNode[]];

export interface ListQueryAnd {
  readonly kind: 'and';
  readonly operands: ListQueryOperands;
}

export interface ListQueryOr {
  readonly kind: 'or';
  readonly operands: ListQueryOperands;
}

export type ListQueryNode = ListQueryComparison | ListQueryAnd | ListQueryOr;

export function isListQueryField(name: string): name is ListQueryField {
  return Object.hasOwn(LIST_QUERY_FIELDS, name);
}

export function isBooleanField(field: ListQueryField): field is BooleanField {
  return LIST_QUERY_FIELDS[field] === 'boolean';
}

export function isEnumField(field: ListQueryField): field is EnumField {
  return LIST_QUERY_FIELDS[field] === 'enum';
}
