// Invariant: LinkRow is the one shape a link has when read from Postgres, with its active custom
// domain host and the destination's fetched preview already joined; LINK_SELECT produces it.

export interface StoredDeepLink {
  appRowId: number;
  mobileAppId: string;
  deeplinkUrl: string | null;
  fallbackUrl: string | null;
  linkBehaviour: 'app' | 'webBrowser' | null;
  fallbackEnabled: boolean;
}

export interface LinkRow {
  id: string;
  seq: string;
  org_id: string;
  short_code: string;
  url: string;
  short_link_name: string | null;
  domain_id: string | null;
  is_active: boolean;
  cloak_enabled: boolean;
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
  enable_custom_metadata: boolean;
  custom_metadata_title: string | null;
  custom_metadata_description: string | null;
  custom_metadata_image_url: string | null;
  deep_links: StoredDeepLink[];
  created_at: string;
  updated_at: string;
  created_by: string;
  updated_by: string;
  created_via: 'INTERNAL' | 'EXTERNAL';
  last_modified_via: 'INTERNAL' | 'EXTERNAL';
  /** Host of the link's custom domain while that domain is active, else null. */
  domain_host: string | null;
  preview_title: string | null;
  preview_description: string | null;
  preview_image_url: string | null;
}

/** FROM clause (alias l) that yields LinkRow columns; append WHERE/ORDER as needed. */
export const LINK_SELECT = `
  select l.*, d.host as domain_host,
         p.title as preview_title, p.description as preview_description, p.image_url as preview_image_url
  from links l
  left join domains d on d.id = l.domain_id and d.active
  left join destination_previews p on p.url = l.url`;
