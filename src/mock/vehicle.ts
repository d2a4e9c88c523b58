/** The listing and dealership shapes the mock serves (the AAP v1.3 Vehicle / dealer-information fields it uses). */

export type Condition = 'new' | 'used' | 'cpo';
export type ListingStatus = 'available' | 'intransit' | 'pending';

export interface Fee {
  name: string;
  amount: number;
}

export interface Vehicle {
  dealer_id: string;
  vehicle_id: string;
  vin: string;
  stock: string;
  year: number;
  make: string;
  model: string;
  trim?: string;
  condition: Condition;
  status: ListingStatus;
  /** Authoritative selling price, whole USD. */
  price: number;
  list_price?: number;
  msrp?: number;
  fees?: Fee[];
  mileage?: number;
  rooftop: string;
  body?: string;
  vehicle_type?: string;
  fuel?: string;
  driveline?: string;
  transmission?: string;
  exterior_color?: string;
  interior_color?: string;
  displacement_cc?: number;
  electric_range_mi?: number;
  dc_fast_charge?: boolean;
  charge_port?: string;
  features?: string[];
  photos?: string[];
  vdp_url?: string;
  inventory_date?: string;
  updated_at: string;
}

export interface OpeningHours {
  open: string;
  close: string;
}

export const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export interface Rooftop {
  name: string;
  legal_name?: string;
  website?: string;
  geo?: { latitude: number; longitude: number };
  emails?: { name?: string; value: string }[];
  phones?: { name?: string; value: string }[];
  address?: Record<string, string>;
  /** `null` for a closed day. The first schedule is the one appointments are booked against. */
  schedules?: { name?: string; value: Partial<Record<Weekday, OpeningHours | null>> }[];
  timezone?: string;
  capabilities?: string[];
}

export interface DealerInfo {
  name: string;
  welcome_message?: string;
  rooftops: Rooftop[];
}
