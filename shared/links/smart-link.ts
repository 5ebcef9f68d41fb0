// Invariant: a link's smart link is the one URL that opens it: the host that serves it (its
// active custom domain, else the default short domain) and its short code. Every smartLink and
// QR code content is spelled here.
export function smartLinkOf(host: string, shortCode: string): string {
  return `https://${host}/${shortCode}`;
}
