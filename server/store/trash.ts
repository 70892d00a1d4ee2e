// Restore: a session that delete moved to the OS trash (the `trash` package), back to its place.
// Only the freedesktop trash (Linux) can be searched: each trashed file has an info file,
// info/NAME.trashinfo, whose Path= is the file's original place (URI-encoded). The trashes
// searched are the home trash ($XDG_DATA_HOME/Trash, default ~/.local/share/Trash) and, when the
// store is on another file system, that file system's $topdir/.Trash/$uid and $topdir/.Trash-$uid,
// which is where the `trash` package puts such files.
//
// A file is brought back only when its original path is this store's <root>/<project>/<ID>.jsonl
// and nothing is at that path now; it is linked there (link(2) never replaces a name) and only
// then unlinked from the trash, so a refusal or a failure loses nothing. macOS and Windows (and
// WSL, whose deletes go to the Windows Recycle Bin) keep no such record we can read: restore says
// so there, and where the session went.
// Depends on node:fs and node:os only.

import { constants, copyFile, link, lstat, readdir, rm, stat, unlink } from 'node:fs/promises';
import { readRegularText } from './files.js';
import { homedir, release } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { StoreError, fromFsError } from './errors.js';

export interface Trashed {
  /** The file in the trash. */
  file: string;
  info: string;
  /** Where it was: <root>/<project folder>/<id>.jsonl. */
  original: string;
  deletedAt: string;
}

/** Whether delete's trash here is one restore can search: Linux's freedesktop trash, not WSL's Recycle Bin. */
export function trashSearchable(): boolean {
  return process.platform === 'linux' && !release().toLowerCase().includes('microsoft');
}

/** The freedesktop trash folders that may hold a file of `root`, home trash first. */
export async function trashFolders(root: string): Promise<string[]> {
  const data =
    process.env.XDG_DATA_HOME && isAbsolute(process.env.XDG_DATA_HOME) ? process.env.XDG_DATA_HOME : join(homedir(), '.local', 'share');
  const out = [join(data, 'Trash')];
  const top = await mountTop(root);
  if (top) {
    const uid = String(process.getuid?.() ?? '');
    out.push(join(top, '.Trash', uid), join(top, `.Trash-${uid}`));
  }
  return out;
}

/** The top folder of the file system holding `path`, when that is not the home folder's. */
async function mountTop(path: string): Promise<string | undefined> {
  try {
    const home = await stat(homedir());
    let at = resolve(path);
    let dev = (await stat(at)).dev;
    if (dev === home.dev) return undefined;
    for (;;) {
      const up = dirname(at);
      if (up === at || (await stat(up)).dev !== dev) return at;
      at = up;
      dev = (await stat(at)).dev;
    }
  } catch {
    return undefined;
  }
}

/** Every trashed copy of session `id` that came from the store at `root`, newest deletion first. */
export async function findTrashed(root: string, id: string): Promise<Trashed[]> {
  if (process.platform !== 'linux')
    throw new StoreError(
      'io',
      `restore cannot search the ${process.platform === 'darwin' ? 'macOS' : process.platform === 'win32' ? 'Windows' : process.platform} trash: put ${id}.jsonl back from the ${process.platform === 'darwin' ? 'Finder Trash' : 'Recycle Bin'} yourself (to its project folder in ${root})`,
      { unsupported: process.platform },
    );
  const found: Trashed[] = [];
  for (const trash of await trashFolders(root)) {
    let names: string[];
    try {
      names = await readdir(join(trash, 'info'));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') continue;
      throw fromFsError(e, `cannot read the trash ${trash}`);
    }
    for (const name of names) {
      if (!name.endsWith('.trashinfo')) continue;
      const info = join(trash, 'info', name);
      const parsed = parseTrashInfo(await readRegularText(info).catch(() => ''), trash);
      if (!parsed || basename(parsed.path) !== `${id}.jsonl`) continue;
      if (dirname(dirname(parsed.path)) !== root) continue; // another store's, or not a session file
      found.push({ file: join(trash, 'files', name.slice(0, -'.trashinfo'.length)), info, original: parsed.path, deletedAt: parsed.date });
    }
  }
  return found.sort((a, b) => (a.deletedAt < b.deletedAt ? 1 : a.deletedAt > b.deletedAt ? -1 : 0));
}

/** Path and DeletionDate of a .trashinfo file; a relative Path is relative to the trash's top folder. */
export function parseTrashInfo(text: string, trash: string): { path: string; date: string } | undefined {
  const lines = text.split(/\r?\n/);
  if (lines[0]?.trim() !== '[Trash Info]') return undefined;
  let path: string | undefined;
  let date = '';
  for (const l of lines.slice(1)) {
    if (l.startsWith('Path=')) {
      try {
        path = decodeURIComponent(l.slice(5));
      } catch {
        return undefined;
      }
    } else if (l.startsWith('DeletionDate=')) date = l.slice(13).trim();
  }
  if (!path) return undefined;
  // Home trash paths are absolute; a $topdir trash may record them relative to $topdir.
  const top = basename(trash).startsWith('.Trash-') ? dirname(trash) : dirname(dirname(trash));
  return { path: isAbsolute(path) ? resolve(path) : resolve(top, path), date };
}

/**
 * Moves the newest trashed copy of `id` back to its place. Refuses, changing nothing, when the
 * place is taken or the trash holds no such session.
 */
export async function restoreFromTrash(root: string, id: string, ensureDir: (dir: string) => Promise<void>): Promise<Trashed> {
  const all = await findTrashed(root, id);
  // The newest deletion whose file is still there (an emptied trash can leave info files behind).
  let t: Trashed | undefined;
  for (const x of all) {
    if (
      await lstat(x.file).then(
        () => true,
        () => false,
      )
    ) {
      t = x;
      break;
    }
  }
  if (!t && all.length > 0)
    throw new StoreError('unknown-session', `the trash records ${id} (${all[0]!.info}) but holds no file for it any more`);
  if (!t) {
    // Under WSL the `trash` package uses the Windows Recycle Bin, which keeps no record we can read.
    if (!trashSearchable())
      throw new StoreError(
        'io',
        `restore cannot search the Windows Recycle Bin (WSL), where delete may have put ${id}.jsonl: put it back yourself (to its project folder in ${root})`,
        { unsupported: 'wsl' },
      );
    throw new StoreError('unknown-session', `no session ${id} of ${root} in the trash (searched ${(await trashFolders(root)).join(', ')})`);
  }
  const taken = await lstat(t.original).then(
    () => true,
    (e: NodeJS.ErrnoException) => e.code !== 'ENOENT',
  );
  if (taken)
    throw new StoreError('io', `cannot restore ${id}: ${t.original} exists; nothing was changed (the trashed copy is still at ${t.file})`, {
      taken: t.original,
      trashed: t.file,
    });
  await ensureDir(dirname(t.original));
  try {
    await link(t.file, t.original); // fails with EEXIST rather than replace a file that appeared since
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST')
      throw new StoreError('io', `cannot restore ${id}: ${t.original} exists; nothing was changed`, { taken: t.original, trashed: t.file });
    if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'ENOTSUP') throw fromFsError(e, `cannot restore ${id} to ${t.original}`);
    // Another file system (a $topdir trash is on the store's own, the home trash may not be).
    await copyFile(t.file, t.original, constants.COPYFILE_EXCL).catch((err) => {
      throw fromFsError(err, `cannot restore ${id} to ${t.original}`);
    });
  }
  await unlink(t.file).catch(() => {});
  await rm(t.info, { force: true }).catch(() => {});
  return t;
}
