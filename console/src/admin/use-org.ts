/** The org's configuration for the admin screens, and applying partial documents to it (one code path: POST /api/admin/apply). */
import type { ApplyDocument, OrgApplyResult, OrgConfiguration } from '@agent-run/client';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { errorText, type Session } from '../session.ts';

export interface OrgState {
  config?: OrgConfiguration;
  error?: string;
  /** The last apply's answer: its `changes` lines, and new keys or secrets (shown once). */
  result?: OrgApplyResult;
  busy: boolean;
  /** Applies `doc`; resolves true when it was accepted. A dry run keeps nothing. */
  apply(doc: ApplyDocument, dryRun?: boolean): Promise<boolean>;
  /** Forgets the last answer and error (another screen was opened). */
  clear(): void;
}

export function useOrg(session: Session): OrgState {
  const admin = session.client.admin;
  const [config, setConfig] = useState<OrgConfiguration>();
  const [error, setError] = useState<string>();
  const [result, setResult] = useState<OrgApplyResult>();
  const [busy, setBusy] = useState(false);
  const [version, setVersion] = useState(0);
  useEffect(() => {
    admin.org().then(setConfig, (err) => setError(errorText(err)));
  }, [admin, version]);
  const apply = useCallback(
    async (doc: ApplyDocument, dryRun = false) => {
      setBusy(true);
      try {
        setResult(await admin.apply(doc, { dryRun }));
        setError(undefined);
        if (!dryRun) setVersion((v) => v + 1);
        return true;
      } catch (err) {
        setError(errorText(err));
        setResult(undefined);
        return false;
      } finally {
        setBusy(false);
      }
    },
    [admin],
  );
  const clear = useCallback(() => (setResult(undefined), setError(undefined)), []);
  return { config, error, result, busy, apply, clear };
}
