import { RequestError } from '../api';

/** A refused request: Hasura's `validation-failed`, with the path of the offending argument. */
export function invalid(message: string, path: string): RequestError {
  return new RequestError('validation-failed', message, path);
}

/** `unknown <what> "<name>"; allowed: a, b, c`. */
export function unknownName(what: string, name: unknown, allowed: Iterable<string>, path: string): RequestError {
  const list = [...new Set(allowed)].sort();
  return invalid(`unknown ${what} ${JSON.stringify(name)}; allowed: ${list.length ? list.join(', ') : '(none)'}`, path);
}
