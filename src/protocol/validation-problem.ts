/** One problem found in a request's skill payload, as the AAP error contract's `details.errors[]` lists it. */
export interface ValidationProblem {
  instanceLocation: string;
  keyword: string;
  error: string;
}
