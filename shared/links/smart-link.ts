// Invariant: a link's smart link is the one URL that opens it: https://<its active custom domain>,
// else the short link base (an origin, scheme included: shortLinkBase in shared/config), then
// its short code. Every smartLink and QR code content is spelled here.

/** `https://<domainHost>/<code>` for a custom domain, else `<shortLinkBase>/<code>`. */
export function smartLinkOf(domainHost: string | null, shortLinkBase: string, shortCode: string): string {
  return `${domainHost === null ? shortLinkBase : customDomainOrigin(domainHost)}/${shortCode}`;
}

export function customDomainOrigin(host: string): string {
  return `https://${host}`;
}
