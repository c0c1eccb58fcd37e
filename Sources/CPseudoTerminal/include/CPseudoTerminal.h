// The POSIX pseudo-terminal calls, which glibc declares only for _XOPEN_SOURCE: Swift's Glibc
// module does not show them, so this target compiles thin wrappers with the feature macro set.
#ifndef C_PSEUDO_TERMINAL_H
#define C_PSEUDO_TERMINAL_H

#include <stddef.h>

/// posix_openpt(3): opens a new pseudo-terminal master.
int cpty_posix_openpt(int flags);
/// grantpt(3): gives the caller the slave's ownership and mode.
int cpty_grantpt(int master);
/// unlockpt(3): lets the slave be opened.
int cpty_unlockpt(int master);
/// ptsname_r(3): the slave's path into buffer.
int cpty_ptsname_r(int master, char *buffer, size_t length);

#endif
