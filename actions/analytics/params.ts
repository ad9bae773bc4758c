import type { Param } from '../api';

/** The statement's bind parameters; $1 is always the session's tenant. */
export class Params {
  readonly values: Param[] = [];

  /** A value as a typed parameter placeholder (`$3::timestamp`); values travel as text. */
  bind(value: string | null, cast: string): string {
    this.values.push(value);
    return `$${this.values.length}::${cast}`;
  }
}
