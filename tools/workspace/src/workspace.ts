// Finding the workspace's projects from the root package.json, the one list npm and nx share.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const workspaceRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');

export interface WorkspaceProject {
  /** Folder relative to the workspace root, with forward slashes. */
  readonly dir: string;
  readonly manifest: PackageManifest;
}

export interface PackageManifest {
  readonly name: string;
  readonly [key: string]: unknown;
}

/** Expands the `workspaces` entries of the root package.json: plain folders and `folder/*`. */
export function listProjects(root: string = workspaceRoot): WorkspaceProject[] {
  const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { workspaces?: string[] };
  const dirs: string[] = [];
  for (const entry of rootManifest.workspaces ?? []) {
    if (entry.endsWith('/*')) {
      const parent = entry.slice(0, -2);
      if (!existsSync(join(root, parent))) continue;
      for (const child of readdirSync(join(root, parent), { withFileTypes: true })) {
        if (child.isDirectory()) dirs.push(`${parent}/${child.name}`);
      }
    } else if (entry.includes('*')) {
      throw new Error(`workspaces entry "${entry}": only "folder" and "folder/*" are supported`);
    } else {
      dirs.push(entry);
    }
  }
  return dirs
    .filter((dir) => existsSync(join(root, dir, 'package.json')))
    .sort()
    .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as PackageManifest }));
}
