// This device's name, as a session's meta line records it (`device`: where the session was
// created) and as a sync conflict's fork names the other copy's device. The name is the
// host's (os.hostname()) unless LEVELCODE_SESSIONS_DEVICE names it otherwise (two stores on one
// machine in the sync tests; a container that should say "devcontainer", not its random hostname).
// Depends on node:os only.

import { hostname } from 'node:os';

export function deviceName(env: NodeJS.ProcessEnv = process.env): string {
  const named = env.LEVELCODE_SESSIONS_DEVICE?.trim();
  return (named ? named : hostname()).slice(0, 200);
}
