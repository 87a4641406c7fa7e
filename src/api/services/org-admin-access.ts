import { isOrgAdmin } from '../../shared/roles.ts';
import { forbidden } from '../../shared/domain-error.ts';
import type { Caller } from '../../auth/caller.ts';

/** 403 unless the caller is an owner or admin of their org (the administration endpoints). */
export function requireOrgAdmin(caller: Caller, what = 'administer the organization'): void {
  if (!isOrgAdmin(caller.role)) throw forbidden(`Only organization owners and admins may ${what}`);
}
