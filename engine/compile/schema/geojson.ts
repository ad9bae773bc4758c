/**
 * The GeoJSON geometries (RFC 7946) that geometry and geography values are written in, checked as
 * Hasura's parser checks them: a known `type`, coordinates nested as that type needs (a position has
 * at least two numbers, a line string two positions, a linear ring four, the last equal to the first),
 * and an optional `crs` object. The first problem found is returned, or undefined for a valid value.
 */

type Check = (v: unknown, at: string) => string | undefined;

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

const position: Check = (v, at) =>
  Array.isArray(v) && v.length >= 2 && v.every((n) => typeof n === 'number' && Number.isFinite(n))
    ? undefined
    : `${at}: a position is an array of at least 2 numbers`;

const listOf =
  (item: Check, min: number, what: string): Check =>
  (v, at) => {
    if (!Array.isArray(v) || v.length < min) return `${at}: ${what} needs at least ${min} positions`;
    for (let i = 0; i < v.length; i++) {
      const e = item(v[i], `${at}[${i}]`);
      if (e) return e;
    }
    return undefined;
  };

const lineString = listOf(position, 2, 'a LineString');

const linearRing: Check = (v, at) => {
  const e = listOf(position, 4, 'a LinearRing')(v, at);
  if (e) return e;
  const ring = v as number[][];
  const [first, last] = [ring[0], ring[ring.length - 1]];
  return first.length === last.length && first.every((n, i) => n === last[i])
    ? undefined
    : `${at}: the first and last positions of a LinearRing must be equal`;
};

const arrayOf =
  (item: Check): Check =>
  (v, at) => {
    if (!Array.isArray(v)) return `${at}: expected an array`;
    for (let i = 0; i < v.length; i++) {
      const e = item(v[i], `${at}[${i}]`);
      if (e) return e;
    }
    return undefined;
  };

const polygon = arrayOf(linearRing);

const COORDINATES: Record<string, Check> = {
  Point: position,
  MultiPoint: arrayOf(position),
  LineString: lineString,
  MultiLineString: arrayOf(lineString),
  Polygon: polygon,
  MultiPolygon: arrayOf(polygon),
};

function geometry(v: unknown, at: string): string | undefined {
  if (!isObject(v)) return `${at}: a GeoJSON geometry is an object`;
  if (v.crs !== undefined && !isObject(v.crs)) return `${at}.crs: expected an object`;
  if (v.type === 'GeometryCollection') return arrayOf(geometry)(v.geometries, `${at}.geometries`);
  const coordinates =
    typeof v.type === 'string' && Object.hasOwn(COORDINATES, v.type) ? COORDINATES[v.type] : undefined;
  if (!coordinates) return `${at}: unexpected geometry type: ${JSON.stringify(v.type)}`;
  return coordinates(v.coordinates, `${at}.coordinates`);
}

export function geoJsonError(value: unknown): string | undefined {
  return geometry(value, '$');
}
