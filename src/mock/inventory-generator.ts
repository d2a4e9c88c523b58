/**
 * Builds the default dataset: about 200 listed vehicles plus a list of sold ones, all derived
 * from one seed. Dates are measured back from a fixed reference day, not from "now", so the same
 * seed gives byte-identical data on every run.
 */
import { DOWNTOWN, MOCK_DEALER_ID, NORTH } from './dealer-profile.js';
import { SeededRandom } from '../common/random.js';
import type { Condition, ListingStatus, Vehicle } from './vehicle.js';

export const DEFAULT_INVENTORY_SEED = 42;
export const LISTED_VEHICLE_COUNT = 200;
export const SOLD_VEHICLE_COUNT = 20;
const REFERENCE_DAY = Date.UTC(2026, 10, 1); // 2026-11-01T00:00:00Z
const NEWEST_MODEL_YEAR = 2027;

interface ModelSpec {
  make: string;
  model: string;
  wmi: string; // VIN world manufacturer identifier
  body: string;
  vehicle_type: string;
  fuel: string;
  drivelines: string[];
  displacement_cc?: number;
  electric_range_mi?: number;
  charge_port?: string;
  base_msrp: number;
  trims: string[];
  /** First model year, for models younger than the used-car window. */
  since?: number;
}

const MODELS: ModelSpec[] = [
  {
    make: 'Honda',
    model: 'Civic',
    wmi: '2HG',
    body: 'sedan',
    vehicle_type: 'car',
    fuel: 'gasoline',
    drivelines: ['FWD'],
    displacement_cc: 1996,
    base_msrp: 24500,
    trims: ['LX', 'Sport', 'EX', 'Touring'],
  },
  {
    make: 'Honda',
    model: 'Accord',
    wmi: '1HG',
    body: 'sedan',
    vehicle_type: 'car',
    fuel: 'hybrid',
    drivelines: ['FWD'],
    displacement_cc: 1993,
    base_msrp: 29500,
    trims: ['LX', 'Sport', 'EX-L', 'Touring'],
  },
  {
    make: 'Honda',
    model: 'CR-V',
    wmi: '7FA',
    body: 'suv',
    vehicle_type: 'suv',
    fuel: 'gasoline',
    drivelines: ['FWD', 'AWD'],
    displacement_cc: 1498,
    base_msrp: 31000,
    trims: ['LX', 'EX', 'EX-L', 'Sport Touring'],
  },
  {
    make: 'Toyota',
    model: 'Corolla',
    wmi: '5YF',
    body: 'sedan',
    vehicle_type: 'car',
    fuel: 'gasoline',
    drivelines: ['FWD'],
    displacement_cc: 1987,
    base_msrp: 22500,
    trims: ['LE', 'SE', 'XSE'],
  },
  {
    make: 'Toyota',
    model: 'Camry',
    wmi: '4T1',
    body: 'sedan',
    vehicle_type: 'car',
    fuel: 'hybrid',
    drivelines: ['FWD', 'AWD'],
    displacement_cc: 2487,
    base_msrp: 28800,
    trims: ['LE', 'SE', 'XLE', 'XSE'],
  },
  {
    make: 'Toyota',
    model: 'RAV4',
    wmi: '2T3',
    body: 'suv',
    vehicle_type: 'suv',
    fuel: 'hybrid',
    drivelines: ['AWD'],
    displacement_cc: 2487,
    base_msrp: 31500,
    trims: ['LE', 'XLE', 'Limited'],
  },
  {
    make: 'Toyota',
    model: 'Tacoma',
    wmi: '3TM',
    body: 'pickup',
    vehicle_type: 'truck',
    fuel: 'gasoline',
    drivelines: ['RWD', '4WD'],
    displacement_cc: 2393,
    base_msrp: 33000,
    trims: ['SR', 'SR5', 'TRD Off-Road'],
  },
  {
    make: 'Ford',
    model: 'F-150',
    wmi: '1FT',
    body: 'pickup',
    vehicle_type: 'truck',
    fuel: 'gasoline',
    drivelines: ['RWD', '4WD'],
    displacement_cc: 3500,
    base_msrp: 39000,
    trims: ['XL', 'XLT', 'Lariat'],
  },
  {
    make: 'Ford',
    model: 'Escape',
    wmi: '1FM',
    body: 'suv',
    vehicle_type: 'suv',
    fuel: 'gasoline',
    drivelines: ['FWD', 'AWD'],
    displacement_cc: 1497,
    base_msrp: 28500,
    trims: ['Active', 'ST-Line', 'Platinum'],
  },
  {
    make: 'Ford',
    model: 'Mustang Mach-E',
    wmi: '3FM',
    body: 'suv',
    vehicle_type: 'suv',
    fuel: 'electric',
    drivelines: ['RWD', 'AWD'],
    electric_range_mi: 290,
    charge_port: 'CCS1',
    base_msrp: 41000,
    trims: ['Select', 'Premium', 'GT'],
    since: 2021,
  },
  {
    make: 'Chevrolet',
    model: 'Silverado 1500',
    wmi: '3GC',
    body: 'pickup',
    vehicle_type: 'truck',
    fuel: 'gasoline',
    drivelines: ['RWD', '4WD'],
    displacement_cc: 5328,
    base_msrp: 38500,
    trims: ['WT', 'LT', 'RST', 'LTZ'],
  },
  {
    make: 'Chevrolet',
    model: 'Equinox',
    wmi: '2GN',
    body: 'suv',
    vehicle_type: 'suv',
    fuel: 'gasoline',
    drivelines: ['FWD', 'AWD'],
    displacement_cc: 1490,
    base_msrp: 28000,
    trims: ['LS', 'LT', 'RS'],
  },
  {
    make: 'Tesla',
    model: 'Model 3',
    wmi: '5YJ',
    body: 'sedan',
    vehicle_type: 'car',
    fuel: 'electric',
    drivelines: ['RWD', 'AWD'],
    electric_range_mi: 310,
    charge_port: 'NACS',
    base_msrp: 40000,
    trims: ['Standard', 'Long Range', 'Performance'],
  },
  {
    make: 'Tesla',
    model: 'Model Y',
    wmi: '7SA',
    body: 'suv',
    vehicle_type: 'suv',
    fuel: 'electric',
    drivelines: ['AWD'],
    electric_range_mi: 320,
    charge_port: 'NACS',
    base_msrp: 45000,
    trims: ['Long Range', 'Performance'],
    since: 2020,
  },
  {
    make: 'Subaru',
    model: 'Outback',
    wmi: '4S4',
    body: 'wagon',
    vehicle_type: 'suv',
    fuel: 'gasoline',
    drivelines: ['AWD'],
    displacement_cc: 2498,
    base_msrp: 30000,
    trims: ['Base', 'Premium', 'Limited', 'Touring'],
  },
  {
    make: 'Subaru',
    model: 'Forester',
    wmi: 'JF2',
    body: 'suv',
    vehicle_type: 'suv',
    fuel: 'gasoline',
    drivelines: ['AWD'],
    displacement_cc: 2498,
    base_msrp: 29000,
    trims: ['Base', 'Premium', 'Sport', 'Touring'],
  },
];

const EXTERIOR_COLORS = ['White', 'Black', 'Silver', 'Gray', 'Blue', 'Red', 'Green'];
const INTERIOR_COLORS = ['Black', 'Gray', 'Beige', 'Brown'];
const FEATURES = [
  'Apple CarPlay',
  'Android Auto',
  'Heated Seats',
  'Sunroof',
  'Adaptive Cruise Control',
  'Blind Spot Monitor',
  'Backup Camera',
  'Navigation',
  'Leather Seats',
  'Remote Start',
];
const DOC_FEE = { name: 'Documentation fee', amount: 199 };

// VIN model-year codes and transliteration (ISO 3779); the check digit makes the VINs look real to validators.
const YEAR_CODES: Record<number, string> = {
  2016: 'G',
  2017: 'H',
  2018: 'J',
  2019: 'K',
  2020: 'L',
  2021: 'M',
  2022: 'N',
  2023: 'P',
  2024: 'R',
  2025: 'S',
  2026: 'T',
  2027: 'V',
};
const VIN_CHARS = 'ABCDEFGHJKLMNPRSTUVWXYZ0123456789';
const VIN_VALUES: Record<string, number> = Object.fromEntries(
  [...'ABCDEFGHJKLMNPRSTUVWXYZ'].map((c, i) => [c, [1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 7, 9, 2, 3, 4, 5, 6, 7, 8, 9][i]!]),
);
const VIN_WEIGHTS = [8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2];

function vinCheckDigit(vin: string): string {
  let sum = 0;
  for (let i = 0; i < 17; i++) {
    const c = vin[i]!;
    sum += (/\d/.test(c) ? Number(c) : VIN_VALUES[c]!) * VIN_WEIGHTS[i]!;
  }
  const r = sum % 11;
  return r === 10 ? 'X' : String(r);
}

function makeVin(rng: SeededRandom, wmi: string, year: number, serial: number): string {
  const vds = Array.from({ length: 5 }, () => rng.pick([...VIN_CHARS])).join('');
  const draft = `${wmi}${vds}0${YEAR_CODES[year]}${rng.pick([...'ABCDEFGHJKLMNPRSTUVWXYZ'])}${String(serial).padStart(6, '0')}`;
  return `${draft.slice(0, 8)}${vinCheckDigit(draft)}${draft.slice(9)}`;
}

/** Prices end in 90, as dealers like them. */
const dealerRound = (usd: number): number => Math.max(990, Math.round(usd / 100) * 100 - 10);

/** Roughly market-shaped: 12% off the lot, 8% a year after that, 2 cents a mile, a premium for certification. */
function usedPrice(msrp: number, age: number, mileage: number, certified: boolean): number {
  const value = msrp * 0.88 * Math.pow(0.92, age) - mileage * 0.02 + (certified ? 1200 : 0);
  return dealerRound(Math.max(value, msrp * 0.2, 3_990));
}

function daysBefore(rng: SeededRandom, maxDays: number): Date {
  return new Date(REFERENCE_DAY - rng.int(0, maxDays * 24 * 60) * 60_000);
}

function pickCondition(rng: SeededRandom): Condition {
  const r = rng.next();
  return r < 0.35 ? 'new' : r < 0.85 ? 'used' : 'cpo';
}

function pickStatus(rng: SeededRandom, condition: Condition): ListingStatus {
  const r = rng.next();
  if (condition === 'new' && r < 0.15) return 'intransit';
  return r > 0.88 ? 'pending' : 'available';
}

function makeVehicle(rng: SeededRandom, serial: number, stockPrefix: string): Vehicle {
  const spec = rng.pick(MODELS);
  const condition = pickCondition(rng);
  const oldest = Math.max(spec.since ?? 0, condition === 'cpo' ? 2021 : 2016);
  const year = condition === 'new' ? rng.int(NEWEST_MODEL_YEAR - 1, NEWEST_MODEL_YEAR) : rng.int(oldest, 2025);
  const age = Math.max(0, NEWEST_MODEL_YEAR - 1 - year);
  const trimIndex = rng.int(0, spec.trims.length - 1);
  const msrp = dealerRound(spec.base_msrp * (1 + 0.09 * trimIndex) * (1 - 0.02 * age));
  const mileage = condition === 'new' ? rng.int(3, 60) : Math.min(condition === 'cpo' ? 75_000 : 160_000, Math.max(2_000, age * rng.int(8_000, 14_000)));
  const price = condition === 'new' ? dealerRound(msrp - rng.int(0, 25) * 100) : usedPrice(msrp, age, mileage, condition === 'cpo');
  const stock = `${stockPrefix}${String(10_000 + serial)}`;
  const vin = makeVin(rng, spec.wmi, year, serial);
  const listedAt = daysBefore(rng, 90);
  const updatedAt = new Date(listedAt.getTime() + rng.int(0, REFERENCE_DAY - listedAt.getTime()));
  const vehicle: Vehicle = {
    dealer_id: MOCK_DEALER_ID,
    vehicle_id: `veh_${String(serial).padStart(5, '0')}`,
    vin,
    stock,
    year,
    make: spec.make,
    model: spec.model,
    trim: spec.trims[trimIndex],
    condition,
    status: pickStatus(rng, condition),
    price,
    list_price: condition === 'new' ? msrp : price + rng.int(5, 15) * 100,
    msrp,
    fees: [DOC_FEE],
    mileage,
    rooftop: rng.next() < 0.6 ? DOWNTOWN : NORTH,
    body: spec.body,
    vehicle_type: spec.vehicle_type,
    fuel: spec.fuel,
    driveline: rng.pick(spec.drivelines),
    transmission: spec.fuel === 'electric' ? 'single-speed' : rng.next() < 0.95 ? 'automatic' : 'manual',
    exterior_color: rng.pick(EXTERIOR_COLORS),
    interior_color: rng.pick(INTERIOR_COLORS),
    features: rng.sample(FEATURES, 4),
    photos: [`https://cdn.mock-motors.example/photos/${vin}/1.jpg`],
    vdp_url: `https://mock-motors.example/inventory/${stock}`,
    inventory_date: listedAt.toISOString().slice(0, 10),
    updated_at: updatedAt.toISOString().replace(/\.\d{3}Z$/, 'Z'),
  };
  if (spec.displacement_cc !== undefined) vehicle.displacement_cc = spec.displacement_cc;
  if (spec.electric_range_mi !== undefined) {
    vehicle.electric_range_mi = spec.electric_range_mi - 8 * age;
    vehicle.dc_fast_charge = true;
    vehicle.charge_port = spec.charge_port;
  }
  return vehicle;
}

export interface GeneratedInventory {
  vehicles: Vehicle[];
  /** Listings that existed and were sold: looked up by id they give VEHICLE_UNAVAILABLE; search never shows them. */
  sold: Vehicle[];
}

export function generateInventory(seed: number = DEFAULT_INVENTORY_SEED): GeneratedInventory {
  const rng = new SeededRandom(seed);
  const vehicles = Array.from({ length: LISTED_VEHICLE_COUNT }, (_, i) => makeVehicle(rng, i + 1, 'M'));
  // Sold listings keep their last published shape; serials continue so no VIN or stock repeats.
  const sold = Array.from({ length: SOLD_VEHICLE_COUNT }, (_, i) => makeVehicle(rng, LISTED_VEHICLE_COUNT + i + 1, 'S'));
  return { vehicles, sold };
}
