/**
 * A package loaded when it is first used instead of at start-up. For the packages that only some
 * configurations or some requests need (SAML, e-mail sign-in, PostgreSQL, reading the metadata YAML
 * when its kept copy is stale, WebSocket subscriptions): loading them was a tenth of the embedded
 * default's start-up. `name` is resolved from here, as an import of the engine's would be; the type
 * comes from an `import type` of the caller's.
 */
export function onFirstUse<T>(name: string): () => T {
  let loaded: { module: T } | undefined;
  return () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    loaded ??= { module: require(name) as T };
    return loaded.module;
  };
}
