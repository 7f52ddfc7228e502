/** The build of `@svc-licensing/web` the server serves when run from source (made by `pnpm build`). */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const WEB_BUILD = fileURLToPath(new URL('../../../web/dist', import.meta.url));

/** A file of the build (`dashboard/index.html`, `assets/…`); fails clearly when there is no build. */
export function webBuildFile(path: string): Buffer {
  if (!existsSync(`${WEB_BUILD}/manifest.json`)) throw new Error(`${WEB_BUILD} holds no build: run pnpm build first`);
  return readFileSync(`${WEB_BUILD}/${path}`);
}
