#!/usr/bin/env python3
"""Runs a command and reports its peak resident set size: `peak-rss.py [--kill-after S] -- CMD ARGS`.

Standard library only. Prints "peak-rss-kb N" (getrusage of the waited-for child: ru_maxrss, KiB) as
the last line of standard error, then exits with the command's status. With --kill-after, a command
still running after S seconds is killed (SIGKILL; "killed after S s" is printed and the status is
137), so a test's time bound also stops the command, not only this wrapper.
"""
import argparse
import resource
import subprocess
import sys


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kill-after", type=float, default=None, metavar="S")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    options = parser.parse_args()
    command = options.command[1:] if options.command[:1] == ["--"] else options.command
    child = subprocess.Popen(command)
    try:
        status = child.wait(timeout=options.kill_after)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
        print(f"killed after {options.kill_after} s", file=sys.stderr)
        status = 137
    print(f"peak-rss-kb {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}", file=sys.stderr, flush=True)
    sys.exit(status if status >= 0 else 128 - status)


if __name__ == "__main__":
    main()
