// Invariant: the platforms a mobile app is registered for; WEB is the entry that serves every
// device that is neither iOS nor Android. This is the one spelling of the set.
export const PLATFORMS = ['IOS', 'ANDROID', 'WEB'] as const;
export type Platform = (typeof PLATFORMS)[number];

export function isPlatform(value: string): value is Platform {
  return (PLATFORMS as readonly string[]).includes(value);
}
