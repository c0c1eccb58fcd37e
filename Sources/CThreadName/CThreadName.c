#define _GNU_SOURCE
#include <pthread.h>
#include "CThreadName.h"

int cthread_set_name(const char *name) {
#if defined(__APPLE__)
    return pthread_setname_np(name);
#else
    return pthread_setname_np(pthread_self(), name);
#endif
}
