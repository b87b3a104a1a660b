#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A partition that fails, hangs, exits or dies ends the whole MPI job,
with an error naming it, and never hangs it.

    psync_faults.py MPIRUN TEST_PSYNC_MPI

Runs test_psync_mpi (the toy simulation of lib/psync) under
`mpirun -np 4` with one process misbehaving at a window (--fault), and
checks for each: the job ends within a bound (the watchdog's timeout,
2 s here, plus its grace and start-up, with a wide margin for a busy
machine), with a non-zero status, and its output names the process.
Where the launcher reports the fault itself (a process that exits or is
killed), its words are the ones checked; a hung process is named by
lib/psync's watchdog, a failing one by the windows' agreement.
"""
import subprocess
import sys
import time

NP = 4
TIMEOUT_S = 2
# the watchdog needs TIMEOUT_S + 2 x 2 s of grace; mpirun starts four
# processes in a second or two on a quiet machine, ten on a busy one
BOUND_S = 90

# (fault, process, what the output must say)
CASES = [
    ("fail", 2, "partition 2 failed in window"),
    ("hang", 1, "ibex psync: partition 1 did not reach window"),
    ("hang", 0, "ibex psync: partition 0 did not reach window"),
    ("exit", 3, "process rank 3"),
    ("kill", 1, "process rank 1"),
]


def run(mpirun, exe, kind, part, window):
    cmd = [mpirun, "--oversubscribe", "--allow-run-as-root", "-np", str(NP),
           exe, "--fault", f"{kind}:{part}:{window}",
           "--timeout", str(TIMEOUT_S)]
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True,
                           timeout=BOUND_S)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else e.stdout
        return None, time.monotonic() - t0, out or ""
    return p.returncode, time.monotonic() - t0, p.stdout


def main():
    mpirun, exe = sys.argv[1], sys.argv[2]
    failed = 0
    for kind, part, want in CASES:
        # the toy runs some 380 windows: fault mid-run
        rc, took, out = run(mpirun, exe, kind, part, 50)
        ok = rc is not None and rc != 0 and want in out
        print(f"{kind} at process {part}: exit {rc} after {took:.1f} s: "
              f"{'ok' if ok else 'FAIL'}")
        if not ok:
            failed += 1
            print(f"  wanted a non-zero exit within {BOUND_S} s and "
                  f"{want!r} in:\n" + "\n".join("  | " + l for l in
                                               out.splitlines()[-30:]))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
