/** Why a write failed, in words a user acts on, with its error code: `the disk is full (ENOSPC)`. */
export function describeWriteError(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ENOSPC':
      return 'the disk is full (ENOSPC)';
    case 'EDQUOT':
      return 'the disk quota is used up (EDQUOT)';
    case 'EROFS':
      return 'the file system is read-only (EROFS)';
    case 'EACCES':
    case 'EPERM':
      return `permission denied (${error.code})`;
    case 'ENOTDIR':
      return 'a part of the path is a file, not a folder (ENOTDIR)';
    case 'EISDIR':
      return 'it is a folder (EISDIR)';
    default:
      return error.code === undefined ? error.message : `${error.message.replace(/^[A-Z]+: /, '')} (${error.code})`;
  }
}
