#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A partition that fails, hangs, exits or dies ends the whole MPI job,
with an error naming it, and never hangs it.

    psync_faults.py MPIRUN TEST_PSYNC_MPI

Runs test_psync_mpi (the toy simulation of lib/psync) under
`mpirun -np 4` with one process misbehaving at a window (--fault), and
checks for each: the job ends within a bound (the watchdog's timeout,
2 s here, plus its grace and start-up, with a wide margin for a busy
machine), with a non-zero status, and its output names the process,
and only it when another comes late but within the grace.
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

# (faults, what the output must say, what it must not)
CASES = [
    (["fail:2"], "partition 2 failed in window", None),
    (["hang:1"], "ibex psync: partition 1 did not reach window", None),
    (["hang:0"], "ibex psync: partition 0 did not reach window", None),
    # process 0 comes 1.5 timeouts late, within the others' grace: it is
    # waiting by then, and answers; only 3 is named
    (["hang:3", "slow:0"], "ibex psync: partition 3 did not reach window",
     "partitions"),
    (["exit:3"], "process rank 3", None),
    (["kill:1"], "process rank 1", None),
]


def run(mpirun, exe, faults, window):
    cmd = [mpirun, "--oversubscribe", "--allow-run-as-root", "-np", str(NP),
           exe, "--timeout", str(TIMEOUT_S)]
    for f in faults:
        cmd += ["--fault", f"{f}:{window}"]
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
    for faults, want, not_want in CASES:
        # the toy runs some 380 windows: fault mid-run
        rc, took, out = run(mpirun, exe, faults, 50)
        ok = rc is not None and rc != 0 and want in out and \
            (not_want is None or not_want not in out)
        print(f"{' and '.join(faults)}: exit {rc} after {took:.1f} s: "
              f"{'ok' if ok else 'FAIL'}")
        if not ok:
            failed += 1
            print(f"  wanted a non-zero exit within {BOUND_S} s, {want!r} "
                  f"and not {not_want!r} in:\n" +
                  "\n".join("  | " + l for l in out.splitlines()[-30:]))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
