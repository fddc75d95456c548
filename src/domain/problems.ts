/**
 * A problem found in what a client asked: the parameter it names, or the
 * entitlement it lacks, and the sentence a client reads. Domain rules collect
 * every problem of a request at once into a list of these; the HTTP layer
 * sends that list as `error.details` (http/errors.ts) and the schemas document
 * it (schemas/errors.ts). It lives here so domain rules need nothing above them.
 */
export interface Problem {
  parameter?: string;
  entitlement?: string;
  message?: string;
}
