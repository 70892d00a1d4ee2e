// Session ids: the UTC time of birth and four random [a-z0-9], e.g. 2026-07-28T09-12-33-8f3k.
// They sort by birth time as plain strings and are safe as file names on every OS.

import { randomInt } from 'node:crypto';
import { SESSION_ID_RE } from './text.js';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

export function newSessionId(now: Date = new Date()): string {
  const stamp = now.toISOString().slice(0, 19).replace(/:/g, '-');
  let suffix = '';
  for (let i = 0; i < 4; i++) suffix += ALPHABET[randomInt(ALPHABET.length)];
  return `${stamp}-${suffix}`;
}

export function isSessionId(id: unknown): id is string {
  return typeof id === 'string' && SESSION_ID_RE.test(id);
}
