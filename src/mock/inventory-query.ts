/** Filtering, sorting and facet counting over listed vehicles, shared by inventory.search and inventory.facets. */
import type { Vehicle } from './vehicle.js';

export interface InventoryFilters {
  make?: string[];
  model?: string[];
  trim?: string[];
  condition?: string[];
  vehicle_type?: string[];
  transmission?: string[];
  fuel?: string[];
  driveline?: string[];
  body?: string[];
  exterior_color?: string[];
  interior_color?: string[];
  rooftops?: string[];
  charge_port?: string[];
  year_min?: number;
  year_max?: number;
  price_min?: number;
  price_max?: number;
  mileage_max?: number;
  displacement_cc_min?: number;
  displacement_cc_max?: number;
  electric_range_mi_min?: number;
  electric_range_mi_max?: number;
  dc_fast_charge?: boolean;
  vin?: string;
  stock?: string;
  query?: string;
}

type ListFilter =
  | 'make'
  | 'model'
  | 'trim'
  | 'condition'
  | 'vehicle_type'
  | 'transmission'
  | 'fuel'
  | 'driveline'
  | 'body'
  | 'exterior_color'
  | 'interior_color'
  | 'charge_port';
type NumericField = 'year' | 'price' | 'mileage' | 'displacement_cc' | 'electric_range_mi';

/** List filters whose name is also the vehicle field they compare (rooftops → rooftop is the odd one). */
const LIST_FILTERS: ListFilter[] = [
  'make',
  'model',
  'trim',
  'condition',
  'vehicle_type',
  'transmission',
  'fuel',
  'driveline',
  'body',
  'exterior_color',
  'interior_color',
  'charge_port',
];

/** [filter key, vehicle field, bound]; a vehicle without the field fails any bound on it. */
const RANGE_FILTERS: [keyof InventoryFilters, NumericField, 'min' | 'max'][] = [
  ['year_min', 'year', 'min'],
  ['year_max', 'year', 'max'],
  ['price_min', 'price', 'min'],
  ['price_max', 'price', 'max'],
  ['mileage_max', 'mileage', 'max'],
  ['displacement_cc_min', 'displacement_cc', 'min'],
  ['displacement_cc_max', 'displacement_cc', 'max'],
  ['electric_range_mi_min', 'electric_range_mi', 'min'],
  ['electric_range_mi_max', 'electric_range_mi', 'max'],
];

const sameText = (a: string | undefined, b: string): boolean => a !== undefined && a.toLowerCase() === b.toLowerCase();

function inList(value: string | undefined, wanted: string[] | undefined): boolean {
  return wanted === undefined || wanted.some((w) => sameText(value, w));
}

function matchesQuery(v: Vehicle, query: string): boolean {
  const haystack = [v.year, v.make, v.model, v.trim, v.body, v.exterior_color, v.fuel, v.stock, v.vin].join(' ').toLowerCase();
  return query
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((word) => haystack.includes(word));
}

export function matchesFilters(v: Vehicle, f: InventoryFilters = {}): boolean {
  if (!LIST_FILTERS.every((key) => inList(v[key], f[key]))) return false;
  if (!inList(v.rooftop, f.rooftops)) return false;
  for (const [key, field, bound] of RANGE_FILTERS) {
    const limit = f[key] as number | undefined;
    if (limit === undefined) continue;
    const value = v[field];
    if (value === undefined || (bound === 'min' ? value < limit : value > limit)) return false;
  }
  if (f.dc_fast_charge !== undefined && (v.dc_fast_charge ?? false) !== f.dc_fast_charge) return false;
  if (f.vin !== undefined && !sameText(v.vin, f.vin)) return false;
  if (f.stock !== undefined && v.stock !== f.stock) return false;
  return f.query === undefined || matchesQuery(v, f.query);
}

export type SortField = 'price' | 'list_price' | 'msrp' | 'mileage' | 'year' | 'make' | 'model' | 'stock' | 'updated_at';

/** Stable sort; vehicles missing the field go last either way; ties keep dataset order. */
export function sortVehicles(vehicles: Vehicle[], field: SortField, order: 'asc' | 'desc' = 'asc'): Vehicle[] {
  const sign = order === 'desc' ? -1 : 1;
  return [...vehicles].sort((a, b) => {
    const x = a[field];
    const y = b[field];
    if (x === undefined || y === undefined) return x === y ? 0 : x === undefined ? 1 : -1;
    return sign * (typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y)));
  });
}

export interface TermCount {
  value: string | number | boolean;
  count: number;
}
export interface Range {
  min: number;
  max: number;
}

/** Facet name → vehicle field, in the order AAP lists them. */
const TERM_FACETS: [string, keyof Vehicle][] = [
  ['makes', 'make'],
  ['models', 'model'],
  ['trims', 'trim'],
  ['years', 'year'],
  ['conditions', 'condition'],
  ['transmissions', 'transmission'],
  ['fuels', 'fuel'],
  ['drivelines', 'driveline'],
  ['bodies', 'body'],
  ['vehicle_types', 'vehicle_type'],
  ['exterior_colors', 'exterior_color'],
  ['interior_colors', 'interior_color'],
  ['rooftops', 'rooftop'],
  ['statuses', 'status'],
  ['dc_fast_charge', 'dc_fast_charge'],
  ['charge_ports', 'charge_port'],
];

const RANGE_FACETS: [string, NumericField][] = [
  ['price_range', 'price'],
  ['mileage_range', 'mileage'],
  ['year_range', 'year'],
  ['displacement_cc_range', 'displacement_cc'],
  ['electric_range_mi_range', 'electric_range_mi'],
];

/** Term counts (most frequent first, then by value) and min/max ranges; empty facets are left out. */
export function computeFacets(vehicles: readonly Vehicle[]): Record<string, TermCount[] | Range> {
  const out: Record<string, TermCount[] | Range> = {};
  for (const [facet, field] of TERM_FACETS) {
    const counts = new Map<string | number | boolean, number>();
    for (const v of vehicles) {
      const value = v[field];
      if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') counts.set(value, (counts.get(value) ?? 0) + 1);
    }
    if (counts.size === 0) continue;
    out[facet] = [...counts].map(([value, count]) => ({ value, count })).sort((a, b) => b.count - a.count || String(a.value).localeCompare(String(b.value)));
  }
  for (const [facet, field] of RANGE_FACETS) {
    const values = vehicles.map((v) => v[field]).filter((x): x is number => typeof x === 'number');
    if (values.length > 0) out[facet] = { min: Math.min(...values), max: Math.max(...values) };
  }
  return out;
}
