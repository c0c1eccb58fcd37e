#define _GNU_SOURCE
#include <stdlib.h>
#include "CPseudoTerminal.h"

int cpty_posix_openpt(int flags) { return posix_openpt(flags); }
int cpty_grantpt(int master) { return grantpt(master); }
int cpty_unlockpt(int master) { return unlockpt(master); }
int cpty_ptsname_r(int master, char *buffer, size_t length) { return ptsname_r(master, buffer, length); }
