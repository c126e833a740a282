import { HeraldError } from './errors.ts';

/**
 * A package Herald loads only once it is needed (a platform's library, a store's driver, an image codec) could
 * not be loaded: it is missing, or its native part does not load on this machine. The fix is the operator's
 * (`internal`), so chat users get the usual apology while the log and the command line name the package.
 */
export class PackageLoadError extends HeraldError {
  readonly packageName: string;

  constructor(packageName: string, cause: unknown) {
    const reason = (cause instanceof Error ? cause.message : String(cause)).split('\n')[0]!.trim();
    super(`could not load the package "${packageName}" (${reason}); reinstall Herald's dependencies with npm ci`, {
      code: 'package_missing',
      kind: 'internal',
      cause,
    });
    this.packageName = packageName;
  }
}

/**
 * Loads, on first use, the package `name` and then what `load` imports (the package itself or Herald's code
 * built on it). A failure to load the package is a one-line PackageLoadError naming it; a failure in Herald's
 * own module is passed on as it is.
 */
export async function loadPackage<T>(name: string, load: () => Promise<T>): Promise<T> {
  try {
    await import(name);
  } catch (cause) {
    throw new PackageLoadError(name, cause);
  }
  return load();
}
