/** What formatIssues reads of a zod issue. */
export interface IssueLike {
  path: readonly PropertyKey[];
  message: string;
}

export interface IssueFormat {
  /** Prefixed to every path ("content" gives "content.title: ..."). */
  root?: string;
  /** The path an issue about the whole value is shown under; without it such an issue is its bare message. */
  atRoot?: string;
}

/** Zod issues as "path: message" lines, the one wording of validation problems outside the HTTP 422 body. */
export function formatIssues(issues: readonly IssueLike[], { root, atRoot }: IssueFormat = {}): string[] {
  return issues.map((issue) => {
    const segments = issue.path.map(String);
    const path = (root ? [root, ...segments] : segments).join('.');
    if (path) return `${path}: ${issue.message}`;
    return atRoot === undefined ? issue.message : `${atRoot}: ${issue.message}`;
  });
}
