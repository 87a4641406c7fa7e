/**
 * The one owner/admin rule: owners and admins use every agent of their org and
 * decide sensitive approvals and grants; members and guests need grants and may not.
 */
export function isOrgAdmin(role: string): boolean {
  return role === 'owner' || role === 'admin';
}
