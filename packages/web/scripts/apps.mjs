/**
 * The apps of this package: each is built from src/<name>/main.tsx (skipped while that file does
 * not exist) into dist/<name>/index.html. The server mounts each one at its own path.
 */
export const APPS = [
  { name: 'dashboard', title: 'Licensing dashboard', loading: 'Loading the dashboard…' },
  { name: 'portal', title: 'Your licenses', loading: 'Loading…' },
];
