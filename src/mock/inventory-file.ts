/**
 * Loads `--inventory FILE`: JSON `{ "dealer"?: {...}, "vehicles": [...], "sold"?: [...] }`.
 * Every problem is reported at once with the file name and the JSON path, as one Error message
 * a CLI can print as is.
 */
import { readRegularFile } from '../common/regular-file.js';
import { createRequire } from 'node:module';
import type { ValidateFunction } from 'ajv';
import { MOCK_DEALER_INFO } from './dealer-profile.js';
import { Inventory } from './inventory.js';
import { toProblems } from '../protocol/request-schemas.js';
import { WEEKDAYS, type DealerInfo, type Vehicle } from './vehicle.js';

const HH_MM = '^([01][0-9]|2[0-3]):[0-5][0-9]$';

const vehicleSchema = {
  type: 'object',
  required: ['vehicle_id', 'vin', 'stock', 'year', 'make', 'model', 'condition', 'status', 'price', 'rooftop', 'updated_at'],
  properties: {
    dealer_id: { type: 'string' },
    vehicle_id: { type: 'string', minLength: 1 },
    vin: { type: 'string', minLength: 17, maxLength: 17 },
    stock: { type: 'string', minLength: 1 },
    year: { type: 'integer', minimum: 1900, maximum: 2100 },
    make: { type: 'string', minLength: 1 },
    model: { type: 'string', minLength: 1 },
    condition: { enum: ['new', 'used', 'cpo'] },
    status: { enum: ['available', 'intransit', 'pending'] },
    price: { type: 'integer', minimum: 0 },
    list_price: { type: 'integer', minimum: 0 },
    msrp: { type: 'integer', minimum: 0 },
    mileage: { type: 'integer', minimum: 0 },
    rooftop: { type: 'string', minLength: 1 },
    updated_at: { type: 'string', format: 'date-time' },
  },
};

const inventoryFileSchema = {
  type: 'object',
  required: ['vehicles'],
  additionalProperties: false,
  properties: {
    dealer: {
      type: 'object',
      required: ['name', 'rooftops'],
      properties: {
        name: { type: 'string', minLength: 1 },
        rooftops: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            required: ['name'],
            properties: {
              name: { type: 'string', minLength: 1 },
              timezone: { type: 'string' },
              // Appointments are booked against these hours, so their shape is checked up front.
              schedules: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['value'],
                  properties: {
                    value: {
                      type: 'object',
                      propertyNames: { enum: [...WEEKDAYS] },
                      // null is a closed day; `required` only constrains objects.
                      additionalProperties: {
                        type: ['object', 'null'],
                        required: ['open', 'close'],
                        properties: { open: { type: 'string', pattern: HH_MM }, close: { type: 'string', pattern: HH_MM } },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
    vehicles: { type: 'array', items: vehicleSchema },
    // A sold listing keeps its last published status, so the same item shape applies.
    sold: { type: 'array', items: vehicleSchema },
  },
};

/** Compiled on first use: only a mock given --inventory reads a file, and compiling costs every other start. */
let compiledFileValidator: ValidateFunction<InventoryFile> | undefined;
function fileValidator(): ValidateFunction<InventoryFile> {
  if (!compiledFileValidator) {
    // Required here, not imported: the validator library costs a mock that reads no file its load time.
    const require = createRequire(import.meta.url);
    const { Ajv2020 } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
    const addFormats = require('ajv-formats') as typeof import('ajv-formats').default;
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats(ajv);
    compiledFileValidator = ajv.compile<InventoryFile>(inventoryFileSchema);
  }
  return compiledFileValidator;
}

interface InventoryFile {
  dealer?: DealerInfo;
  vehicles: Vehicle[];
  sold?: Vehicle[];
}

/** The same VIN, stock number or vehicle id on two listings would make lookups ambiguous. */
function duplicateIdProblems(file: InventoryFile): string[] {
  const problems: string[] = [];
  const seen = new Map<string, string>();
  const lists: ['vehicles' | 'sold', Vehicle[]][] = [
    ['vehicles', file.vehicles],
    ['sold', file.sold ?? []],
  ];
  for (const [list, vehicles] of lists) {
    vehicles.forEach((v, i) => {
      for (const key of ['vin', 'stock', 'vehicle_id'] as const) {
        const id = `${key}:${key === 'vin' ? v[key].toUpperCase() : v[key]}`;
        const here = `/${list}/${i}/${key}`;
        const first = seen.get(id);
        if (first) problems.push(`${here}: duplicates ${first} (${v[key]})`);
        else seen.set(id, here);
      }
    });
  }
  return problems;
}

/** Timezone names are checked against the runtime's tz database, which a schema cannot do. */
function timezoneProblems(dealer: DealerInfo | undefined): string[] {
  return (dealer?.rooftops ?? []).flatMap((r, i) => {
    if (r.timezone === undefined) return [];
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: r.timezone });
      return [];
    } catch {
      return [`/dealer/rooftops/${i}/timezone: unknown timezone '${r.timezone}'`];
    }
  });
}

function fail(file: string, problems: string[]): never {
  throw new Error(
    `Inventory file ${file} is invalid (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n${problems.map((p) => `  ${p}`).join('\n')}`,
  );
}

export function parseInventory(file: string, text: string): Inventory {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new Error(`Inventory file ${file} is not valid JSON: ${(e as Error).message}`);
  }
  const validateFile = fileValidator();
  if (!validateFile(parsed)) {
    fail(
      file,
      toProblems(validateFile.errors ?? []).map((p) => `${p.instanceLocation || '/'}: ${p.error}`),
    );
  }
  const data = parsed;
  const problems = [...duplicateIdProblems(data), ...timezoneProblems(data.dealer)];
  if (problems.length > 0) fail(file, problems);
  return new Inventory(data.dealer ?? MOCK_DEALER_INFO, data.vehicles, data.sold ?? []);
}

/** An inventory of tens of thousands of vehicles is a few MB. */
const MAX_INVENTORY_BYTES = 64 * 1024 * 1024;

export function loadInventoryFile(file: string): Inventory {
  const read = readRegularFile(file, { maxBytes: MAX_INVENTORY_BYTES, what: 'an inventory' });
  if (!read.ok) throw new Error(`--inventory: ${file}: ${read.message}`);
  return parseInventory(file, read.bytes.toString('utf8'));
}
