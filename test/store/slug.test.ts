// Slugs and ids: the naming of folders and files in the store.
import { describe, it, expect } from 'vitest';
import { createHash } from 'node:crypto';
import { projectSlug, MAX_SLUG, isAbsoluteProjectPath } from '../../server/store/slug.js';
import { newSessionId, isSessionId } from '../../server/format/ids.js';

describe('projectSlug', () => {
  it('turns every character outside [A-Za-z0-9] into a dash', () => {
    expect(projectSlug('/Users/ada/code/thin.ly')).toBe('-Users-ada-code-thin-ly');
    expect(projectSlug('/home/x/my_proj v2')).toBe('-home-x-my-proj-v2');
  });
  it('handles the root', () => {
    expect(projectSlug('/')).toBe('-');
  });
  it('maps each unicode code point to one dash', () => {
    expect(projectSlug('/home/zoë/código')).toBe('-home-zo--c-digo');
    expect(projectSlug('/p/🚀')).toBe('-p--');
    expect(projectSlug('/日本/語')).toBe('-----');
  });
  it('handles Windows drive letters and UNC paths', () => {
    expect(projectSlug('C:\\Users\\ada\\code')).toBe('C--Users-ada-code');
    expect(projectSlug('\\\\server\\share\\proj')).toBe('--server-share-proj');
    expect(isAbsoluteProjectPath('C:\\Users')).toBe(true);
    expect(isAbsoluteProjectPath('\\\\server\\share')).toBe(true);
    expect(isAbsoluteProjectPath('relative/path')).toBe(false);
  });
  it('lets different paths collide (the meta line disambiguates)', () => {
    expect(projectSlug('/a/b-c')).toBe(projectSlug('/a-b/c'));
  });
  it('keeps very long slugs within a file-name limit and unique', () => {
    const a = '/' + 'x'.repeat(400) + '/a';
    const b = '/' + 'x'.repeat(400) + '/b';
    expect(projectSlug(a).length).toBeLessThanOrEqual(MAX_SLUG);
    expect(projectSlug(a)).not.toBe(projectSlug(b));
    expect(projectSlug(a)).toMatch(/^[A-Za-z0-9-]+$/);
    // As protocol.md says: the first 187 characters, '-', 12 hex digits of the path's SHA-256.
    const sha = createHash('sha256').update(a).digest('hex').slice(0, 12);
    expect(projectSlug(a)).toBe(`${'-' + 'x'.repeat(186)}-${sha}`);
    expect(projectSlug(a)).toHaveLength(200);
  });
});

describe('session ids', () => {
  it('are the UTC birth time plus four random [a-z0-9]', () => {
    const id = newSessionId(new Date('2026-07-28T09:12:33.456Z'));
    expect(id).toMatch(/^2026-07-28T09-12-33-[a-z0-9]{4}$/);
    expect(isSessionId(id)).toBe(true);
  });
  it('reject anything else', () => {
    for (const bad of ['../x', '2026-07-28T09-12-33-8F3K', '2026-07-28T09-12-33-8f3k.jsonl', '', 'a/b', '2026-07-28T09-12-33-8f3k\0'])
      expect(isSessionId(bad)).toBe(false);
  });
});
