import { ToolError } from '../shared/tools/tool-error.ts';

/** File-system failures the model caused (or can work around), in words that name no host path. */
const explained: Record<string, string> = {
  ENAMETOOLONG: 'file name too long',
  ELOOP: 'too many levels of symbolic links',
  ENOTDIR: 'a part of the path is not a directory',
  EISDIR: 'is a directory',
  EEXIST: 'already exists',
  ENOTEMPTY: 'directory not empty',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  EFBIG: 'file too large',
  ENOSPC: 'no space left in the workspace (its disk quota is full)',
  EDQUOT: 'disk quota exceeded',
};

/** Turns those failures into ToolErrors (shown to the model); anything else stays an error the activity retries. */
export async function asToolError<T>(path: string, op: Promise<T>): Promise<T> {
  try {
    return await op;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (!(err instanceof ToolError) && code && explained[code])
      throw new ToolError(`${path}: ${explained[code]}`, code);
    throw err;
  }
}
