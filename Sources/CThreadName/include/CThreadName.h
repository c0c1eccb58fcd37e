// Naming the calling thread: glibc declares pthread_setname_np only for _GNU_SOURCE, which Swift's
// Glibc module does not set, so this target compiles a thin wrapper with the feature macro set.
#ifndef C_THREAD_NAME_H
#define C_THREAD_NAME_H

/// pthread_setname_np(3) on the calling thread: `name` is at most 15 bytes (Linux's limit).
int cthread_set_name(const char *name);

#endif
