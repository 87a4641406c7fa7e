/**
 * The one owner/admin rule: owners and admins use every agent of their org and
 * decide sensitive approvals and grants; members and guests need grants and may not.
 */
export function isOrgAdmin(role: string): boolean {
  return role === 'owner' || role === 'admin';
}

/** The agent-access rule: owners and admins may use every agent of their org; members and guests need a grant. */
export function mayUseAgentAs(role: string, granted: boolean): boolean {
  return isOrgAdmin(role) || granted;
}
