/** Mock Motors: the fictional dealership behind the generated inventory (555 phone numbers, example.com sites). */
import type { DealerInfo, OpeningHours } from './vehicle.js';

const weekdayHours = (open: string, close: string): OpeningHours => ({ open, close });

export const MOCK_DEALER_ID = 'mock-motors';
export const DOWNTOWN = 'Mock Motors Downtown';
export const NORTH = 'Mock Motors North';

export const MOCK_DEALER_INFO: DealerInfo = {
  name: 'Mock Motors',
  welcome_message: 'Welcome to Mock Motors, the test dealership of aap-chaos.',
  rooftops: [
    {
      name: DOWNTOWN,
      legal_name: 'Mock Motors Downtown LLC',
      website: 'https://downtown.mock-motors.example',
      geo: { latitude: 41.8781, longitude: -87.6298 },
      emails: [{ name: 'Sales', value: 'sales@downtown.mock-motors.example' }],
      phones: [
        { name: 'Sales', value: '+15555550100' },
        { name: 'Service', value: '+15555550101' },
      ],
      address: { line1: '100 Main Street', city: 'Chicago', region: 'IL', postal_code: '60601', country: 'US' },
      schedules: [
        {
          name: 'Sales',
          value: {
            monday: weekdayHours('09:00', '19:00'),
            tuesday: weekdayHours('09:00', '19:00'),
            wednesday: weekdayHours('09:00', '19:00'),
            thursday: weekdayHours('09:00', '19:00'),
            friday: weekdayHours('09:00', '19:00'),
            saturday: weekdayHours('10:00', '17:00'),
            sunday: null,
          },
        },
      ],
      timezone: 'America/Chicago',
      capabilities: ['sales', 'service', 'test_drive', 'trade_in'],
    },
    {
      name: NORTH,
      legal_name: 'Mock Motors North LLC',
      website: 'https://north.mock-motors.example',
      geo: { latitude: 42.0451, longitude: -87.6877 },
      emails: [{ name: 'Sales', value: 'sales@north.mock-motors.example' }],
      phones: [{ name: 'Sales', value: '+15555550200' }],
      address: { line1: '2500 Ridge Avenue', city: 'Evanston', region: 'IL', postal_code: '60201', country: 'US' },
      schedules: [
        {
          name: 'Sales',
          value: {
            monday: weekdayHours('10:00', '18:00'),
            tuesday: weekdayHours('10:00', '18:00'),
            wednesday: weekdayHours('10:00', '18:00'),
            thursday: weekdayHours('10:00', '18:00'),
            friday: weekdayHours('10:00', '18:00'),
            saturday: weekdayHours('10:00', '16:00'),
            sunday: weekdayHours('12:00', '16:00'),
          },
        },
      ],
      timezone: 'America/Chicago',
      capabilities: ['sales', 'test_drive', 'trade_in'],
    },
  ],
};
