// Project folder names. A project's folder in the store is its absolute real path with every
// character outside [A-Za-z0-9] turned into '-' (one '-' per Unicode code point), so
// /Users/ada/code/thin.ly becomes -Users-ada-code-thin-ly. Pure string work: no fs.
//
// Slugs can collide (/a/b-c and /a-b/c): that is accepted, because the meta line of every
// session keeps the real path and every listing by project filters on it.

import { createHash } from 'node:crypto';

/** Longest slug we use as a folder name; longer ones keep a prefix plus a hash of the path. */
export const MAX_SLUG = 200;

export function projectSlug(projectPath: string): string {
  let slug = '';
  for (const ch of projectPath) slug += /^[A-Za-z0-9]$/.test(ch) ? ch : '-';
  if (slug.length === 0) slug = '-';
  if (slug.length > MAX_SLUG) {
    // Folder names are limited to 255 bytes: keep a readable prefix and make it unique.
    const hash = createHash('sha256').update(projectPath).digest('hex').slice(0, 12);
    slug = `${slug.slice(0, MAX_SLUG - 13)}-${hash}`;
  }
  return slug;
}

/** True for a path that is absolute on POSIX, a Windows drive path or a UNC path. */
export function isAbsoluteProjectPath(p: string): boolean {
  return p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p) || /^\\\\[^\\]+\\[^\\]+/.test(p);
}
