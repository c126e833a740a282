import { PackageLoadError } from './errors.ts';

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
