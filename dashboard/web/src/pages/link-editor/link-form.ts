// Invariant: the link form as the editor holds it (text as typed, the rules part in
// rules-form.ts) and the save request made of it: an empty optional text is null, a custom
// domain is sent only when it is one of the organisation's active hosts, a new link's short code
// only when typed.
import type { BodyOf, ResponseOf } from '../../../../contract/schemas.ts';
import { EMPTY_RULES, type RulesForm, rulesBodyOf, rulesFieldNames, rulesFormOf, rulesProblems } from './rules-form.ts';

export type LinkView = ResponseOf<'link'>;

export interface DeepLinkForm {
  mobileAppId: string;
  deeplinkUrl: string;
  fallbackUrl: string;
  linkBehaviour: string;
  fallbackEnabled: boolean;
}

export interface LinkForm {
  url: string;
  shortCode: string;
  shortLinkName: string;
  customDomain: string;
  isActive: boolean;
  cloakEnabled: boolean;
  utmSource: string;
  utmMedium: string;
  utmCampaign: string;
  enableCustomMetadata: boolean;
  customMetadataTitle: string;
  customMetadataDescription: string;
  customMetadataImageUrl: string;
  deepLinks: DeepLinkForm[];
  access: RulesForm;
}

/** What a section of the form gets: the form, a patch setter, the errors by field, and whether it is read-only. */
export interface SectionProps {
  form: LinkForm;
  onChange(patch: Partial<LinkForm>): void;
  errors: Record<string, string | undefined>;
  disabled: boolean;
}

export const EMPTY: LinkForm = {
  url: '',
  shortCode: '',
  shortLinkName: '',
  customDomain: '',
  isActive: true,
  cloakEnabled: false,
  utmSource: '',
  utmMedium: '',
  utmCampaign: '',
  enableCustomMetadata: false,
  customMetadataTitle: '',
  customMetadataDescription: '',
  customMetadataImageUrl: '',
  deepLinks: [],
  access: EMPTY_RULES,
};

export const NEW_DEEP_LINK: DeepLinkForm = { mobileAppId: '', deeplinkUrl: '', fallbackUrl: '', linkBehaviour: '', fallbackEnabled: false };

export function formOf(l: LinkView): LinkForm {
  const host = new URL(l.smartLink).host;
  return {
    url: l.url,
    shortCode: l.shortCode,
    shortLinkName: l.shortLinkName ?? '',
    customDomain: l.smartLink.startsWith('https://') ? host : '',
    isActive: l.isActive,
    cloakEnabled: l.cloakEnabled,
    utmSource: l.utmSource ?? '',
    utmMedium: l.utmMedium ?? '',
    utmCampaign: l.utmCampaign ?? '',
    enableCustomMetadata: l.enableCustomMetadata,
    customMetadataTitle: l.customMetadataTitle ?? '',
    customMetadataDescription: l.customMetadataDescription ?? '',
    customMetadataImageUrl: l.customMetadataImageUrl ?? '',
    deepLinks: l.deepLinks.map((d) => ({
      mobileAppId: d.mobileAppId,
      deeplinkUrl: d.deeplinkUrl ?? '',
      fallbackUrl: d.fallbackUrl ?? '',
      linkBehaviour: d.linkBehaviour ?? '',
      fallbackEnabled: d.fallbackEnabled,
    })),
    access: rulesFormOf(l),
  };
}

const orNull = (s: string): string | null => (s.trim() === '' ? null : s);

export function bodyOf(f: LinkForm, isNew: boolean, domains: readonly string[]): BodyOf<'saveLink'> {
  return {
    url: f.url,
    ...(isNew ? (f.shortCode.trim() === '' ? {} : { shortCode: f.shortCode.trim() }) : { shortCode: f.shortCode }),
    shortLinkName: orNull(f.shortLinkName),
    ...(f.customDomain !== '' && domains.includes(f.customDomain) ? { customDomain: f.customDomain } : {}),
    isActive: f.isActive,
    cloakEnabled: f.cloakEnabled,
    utmSource: orNull(f.utmSource),
    utmMedium: orNull(f.utmMedium),
    utmCampaign: orNull(f.utmCampaign),
    enableCustomMetadata: f.enableCustomMetadata,
    customMetadataTitle: orNull(f.customMetadataTitle),
    customMetadataDescription: orNull(f.customMetadataDescription),
    customMetadataImageUrl: orNull(f.customMetadataImageUrl),
    deepLinks: f.deepLinks.map((d) => ({
      mobileAppId: d.mobileAppId,
      deeplinkUrl: orNull(d.deeplinkUrl),
      fallbackUrl: orNull(d.fallbackUrl),
      linkBehaviour: d.linkBehaviour === 'app' || d.linkBehaviour === 'webBrowser' ? d.linkBehaviour : null,
      fallbackEnabled: d.fallbackEnabled,
    })),
    ...rulesBodyOf(f.access),
  };
}

/** What the form refuses before any request, by field (empty: it can be sent). */
export function formProblems(f: LinkForm): Record<string, string> {
  return rulesProblems(f.access);
}

/** The field names the server's errors may name. */
export function fieldNames(f: LinkForm): string[] {
  return [
    'url',
    'shortCode',
    'shortLinkName',
    'customDomain',
    'utmSource',
    'utmMedium',
    'utmCampaign',
    'enableCustomMetadata',
    'customMetadataTitle',
    'customMetadataDescription',
    'customMetadataImageUrl',
    ...f.deepLinks.flatMap((_, i) => ['mobileAppId', 'deeplinkUrl', 'fallbackUrl', 'linkBehaviour'].map((k) => `deepLinks[${i}].${k}`)),
    ...rulesFieldNames(f.access),
  ];
}
