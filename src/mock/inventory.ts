/**
 * The dataset one mock dealer serves: its dealership, the listed vehicles and the sold ones.
 * Tests and other features use the accessors here to pick known VINs.
 */
import { MOCK_DEALER_INFO } from './dealer-profile.js';
import { DEFAULT_INVENTORY_SEED, generateInventory } from './inventory-generator.js';
import type { DealerInfo, Vehicle } from './vehicle.js';

export interface VehicleKey {
  vin?: string;
  stock?: string;
  vehicle_id?: string;
}

export type VehicleLookup = { found: 'listed'; vehicle: Vehicle } | { found: 'sold'; vehicle: Vehicle } | { found: 'none' };

export class Inventory {
  constructor(
    readonly dealer: DealerInfo,
    /** Vehicles in an in-stock status (available, intransit, pending). */
    readonly vehicles: readonly Vehicle[],
    /** Vehicles that were listed and sold. */
    readonly sold: readonly Vehicle[],
  ) {}

  static fromSeed(seed: number = DEFAULT_INVENTORY_SEED): Inventory {
    const { vehicles, sold } = generateInventory(seed);
    return new Inventory(MOCK_DEALER_INFO, vehicles, sold);
  }

  /**
   * The same stock under another dealership: its name (the dealer.information name, the card's, and
   * the rooftops named after it) and the `dealer_id` every vehicle carries. Several mocks behind one
   * proxy each get their own, so a buyer that fans out can tell them apart.
   */
  asDealer(identity: { name: string; dealerId?: string }): Inventory {
    const old = this.dealer.name;
    const rename = (rooftop: string): string => (rooftop.startsWith(old) ? identity.name + rooftop.slice(old.length) : rooftop);
    const dealer: DealerInfo = {
      ...this.dealer,
      name: identity.name,
      ...(this.dealer.welcome_message !== undefined ? { welcome_message: this.dealer.welcome_message.split(old).join(identity.name) } : {}),
      rooftops: this.dealer.rooftops.map((r) => ({ ...r, name: rename(r.name) })),
    };
    const move = (v: Vehicle): Vehicle => ({
      ...v,
      ...(identity.dealerId !== undefined ? { dealer_id: identity.dealerId } : {}),
      rooftop: rename(v.rooftop),
    });
    return new Inventory(dealer, this.vehicles.map(move), this.sold.map(move));
  }

  /** Every identifier given must match the same vehicle (VIN case-insensitively). */
  lookup(key: VehicleKey): VehicleLookup {
    const matches = (v: Vehicle): boolean =>
      (key.vin === undefined || v.vin.toUpperCase() === key.vin.toUpperCase()) &&
      (key.stock === undefined || v.stock === key.stock) &&
      (key.vehicle_id === undefined || v.vehicle_id === key.vehicle_id);
    if (key.vin === undefined && key.stock === undefined && key.vehicle_id === undefined) return { found: 'none' };
    const listed = this.vehicles.find(matches);
    if (listed) return { found: 'listed', vehicle: listed };
    const sold = this.sold.find(matches);
    return sold ? { found: 'sold', vehicle: sold } : { found: 'none' };
  }

  /** The first listed (else sold) vehicle of this year, make and model (make and model case-insensitively). */
  lookupModel(key: { year: number; make: string; model: string }): VehicleLookup {
    const same = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();
    const matches = (v: Vehicle): boolean => v.year === key.year && same(v.make, key.make) && same(v.model, key.model);
    const listed = this.vehicles.find(matches);
    if (listed) return { found: 'listed', vehicle: listed };
    const sold = this.sold.find(matches);
    return sold ? { found: 'sold', vehicle: sold } : { found: 'none' };
  }

  /** The first listed vehicle whose status is `available` (what a test asks for as "a known good VIN"). */
  firstAvailable(): Vehicle {
    const v = this.vehicles.find((x) => x.status === 'available');
    if (!v) throw new Error('the inventory has no available vehicle');
    return v;
  }

  /** The first sold vehicle ("a known sold VIN"). */
  firstSold(): Vehicle {
    const v = this.sold[0];
    if (!v) throw new Error('the inventory has no sold vehicle');
    return v;
  }

  /** The rooftop a vehicle is at, falling back to the first one (the main rooftop). */
  rooftop(name?: string): DealerInfo['rooftops'][number] {
    return this.dealer.rooftops.find((r) => r.name === name) ?? this.dealer.rooftops[0]!;
  }
}
