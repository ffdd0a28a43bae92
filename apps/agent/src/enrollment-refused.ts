/** Enrollment cannot succeed by trying again (a used, expired or foreign token): the agent exits with this message. */
export class EnrollmentRefused extends Error {
  override readonly name = 'EnrollmentRefused';
}
