/** Request headers by lower-case name, as Node gives them. */
export type HeaderBag = Readonly<Record<string, string | string[] | undefined>>;

/** One header's value; repeated headers are joined as HTTP joins them. */
export const header = (headers: HeaderBag, name: string): string | undefined => {
  const v = headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
};
