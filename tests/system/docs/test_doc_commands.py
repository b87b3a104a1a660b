#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Every command a user would copy from README.md and docs/ runs.

    test_doc_commands.py SOURCE_ROOT BUILD_ROOT [DOC[:LINE]...]

Every fenced code block of README.md and docs/*.md, and every indented one
of docs/man/*.md, that holds an ibex command (ibex-switch, ibex-gen,
ibex-fabric, ibex-ctl, ibex-pcapgen, ibex-topo, a script under tests/ or
app/, meson, ninja) carries a mark: on the line just before its opening fence, or for
a man page a line of MAN_MARKS (MARK_HELP below says how). The mark runs
the block, as written or in a short form, or skips it with a reason. A
block without one fails the test, so a new command in the docs cannot go
untested without a stated reason.

A block marked run is run as one bash script (set -e, pipefail):
  - in a fresh directory whose entries link to the source tree's top
    level (conf/, tests/, ...), so the docs' relative paths resolve and the
    files a command writes land in the scratch directory;
  - with the build tree's programs first on PATH under their installed
    names; ibex-switch, ibex-gen and ibex-fabric get --file-prefix=UNIQUE
    as their first argument unless they name one (or, ibex-fabric, run
    --check, which takes no EAL arguments), ibex-ctl gets
    --file-prefix UNIQUE unless it names a socket or a prefix, so runs
    never collide with each other or with anything else on the machine;
  - with "/tmp/" in the text mapped into the scratch directory, and so
    IBEX_DEMO_OUT, and IBEX_DEPS_NO_INSTALL=1 (tests/deps.sh never runs
    apt-get here);
  - in a transcript (lines "$ command" followed by its output), only the
    "$ " lines are commands.
It fails on a non-zero exit, on a generator report of loss (sequence
"lost N" with N > 0, fewer frames received than sent, failed iterations
or out-of-bounds sizes) and on error lines (see ERROR_RES).

DOC_CMD_VERBOSE=1 prints every block's output.
Arguments after the two roots run only the named blocks (docs/x.md runs
every block of that file, docs/x.md:42 the block whose fence is on line 42).
"""

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

MARK_HELP = """\
Mark each code block that holds an ibex command on the line just before
its opening ``` with one of:
  <!-- test: run -->                    run it as written
  <!-- test: run OPTIONS -->            run a short form of it; OPTIONS:
      sub='OLD=>NEW'   replace the text OLD (which must occur) by NEW
                       (repeatable), e.g. sub='-n 50=>-n 2'
      append='ARGS'    append ARGS to each ibex-switch, ibex-gen and
                       ibex-fabric command, e.g. append='--duration 1'
      omit='TEXT=>REASON'  leave out the commands holding TEXT, for the
                       REASON given (e.g. omit='tests/run-all.sh=>what
                       CI runs')
      bg               run the first command in the background, the
                       others once its control socket listens, then wait
                       for it to end (for "while it runs" examples)
      stop             with bg: end the first command with SIGTERM once
                       the others are done
  <!-- test: skip REASON -->            not run; say why (needs a NIC,
                                        hugepages, root, minutes, ...)
A man page's markdown (docs/man/*.md; go-md2man would print the comment)
has its marks in tests/system/docs/man_marks.txt instead, one line a block:
  docs/man/PAGE.md | TEXT ONLY THAT BLOCK HOLDS | run OPTIONS or skip REASON
The marks are read by tests/system/docs/test_doc_commands.py
(meson test -C build doc_commands); run one block with
  tests/system/docs/test_doc_commands.py . build FILE.md:LINE"""

# A line holds an ibex command when, at its start or after "(", "&&", ";"
# or "|", then a "$ " prompt, sudo, VAR=value assignments and an mpirun
# with its options, one of these starts a word.
CMD_RE = re.compile(
    r'(?:^\s*|[;&|(]\s*)(?:\$\s+)?(?:sudo\s+)?'
    r'(?:[A-Za-z_][A-Za-z_0-9]*=\S*\s+)*'
    r'(?:mpirun(?:\s+-\S+(?:\s+\d+)?)*\s+)?'
    r'(?:ibex-(?:switch|gen|fabric|ctl|pcapgen|topo)(?=\s|$)|tests/\S+|app/\S+'
    r'|meson(?=\s)|ninja(?=\s)|build[^/\s]*/\S+)')
MAN_MARKS = 'tests/system/docs/man_marks.txt'
MARK_RE = re.compile(r'^\s*<!--\s*test:\s*(.*?)\s*-->\s*$')
FENCE_RE = re.compile(r'^\s*```')
SWITCHES = ('ibex-switch', 'ibex-gen', 'ibex-fabric')

# Error lines in any output, besides the checks of the generator's report.
ERROR_RES = [
    re.compile(r'^EAL: (?:Error|FATAL|Cannot)', re.M),
    re.compile(r'^ibex-\w+: .*\b(?:error|cannot|failed|refus\w*|invalid)\b',
               re.M | re.I),
    re.compile(r'\b(?:Segmentation fault|Aborted|AddressSanitizer|'
               r'runtime error:)'),
    re.compile(r'^(?:bash: )?.*: (?:command not found|No such file or '
               r'directory)$', re.M),
    re.compile(r'\bFAIL(?:ED)?\b(?!.*\b0 FAILED)'),
]
TIMEOUT = float(os.environ.get('DOC_CMD_TIMEOUT', '150'))


class Block:
    def __init__(self, doc, line, text, mark):
        self.doc, self.line, self.text, self.mark = doc, line, text, mark

    def where(self):
        return '%s:%d' % (self.doc, self.line)


def man_blocks(root, doc, marks):
    """Every indented block of a man page's markdown holding an ibex
    command; its mark is the line of MAN_MARKS naming a text of it."""
    lines = open(os.path.join(root, doc), encoding='utf-8').read().split('\n')
    out, i = [], 0
    while i < len(lines):
        if not (lines[i].startswith('    ') and
                (i == 0 or lines[i - 1].strip() == '' or
                 lines[i - 1].startswith('#'))):
            i += 1
            continue
        start, body = i, []
        while i < len(lines) and (lines[i].startswith('    ') or
                                  (lines[i].strip() == '' and i + 1 <
                                   len(lines) and
                                   lines[i + 1].startswith('    '))):
            body.append(lines[i][4:])
            i += 1
        text = '\n'.join(body)
        if any(CMD_RE.search(l) for l in body):
            mine = [m for d, key, m in marks if d == doc and key in text]
            b = Block(doc, start + 1, text, mine[0] if len(mine) == 1
                      else None)
            if len(mine) > 1:
                b.mark = 'ambiguous: %d lines of %s name it' % (
                    len(mine), MAN_MARKS)
            out.append(b)
    return out


def read_man_marks(root):
    """(doc, text, mark) of each line "DOC | TEXT | MARK" of MAN_MARKS."""
    out = []
    path = os.path.join(root, MAN_MARKS)
    if not os.path.exists(path):
        return out
    for k, l in enumerate(open(path, encoding='utf-8'), 1):
        if l.strip() == '' or l.startswith('#'):
            continue
        f = [x.strip() for x in l.split(' | ', 2)]
        if len(f) != 3:
            raise SystemExit('%s:%d: not "DOC | TEXT | MARK"' % (MAN_MARKS, k))
        out.append(tuple(f))
    return out


def blocks(root, doc):
    """Every fenced block of doc holding an ibex command."""
    lines = open(os.path.join(root, doc), encoding='utf-8').read().split('\n')
    out, i = [], 0
    while i < len(lines):
        if not FENCE_RE.match(lines[i]):
            i += 1
            continue
        start = i
        j = start - 1
        while j >= 0 and lines[j].strip() == '':
            j -= 1
        m = MARK_RE.match(lines[j]) if j >= 0 else None
        i += 1
        body = []
        while i < len(lines) and not FENCE_RE.match(lines[i]):
            body.append(lines[i])
            i += 1
        i += 1
        text = '\n'.join(body)
        if any(CMD_RE.search(l) for l in body):
            out.append(Block(doc, start + 1, text, m.group(1) if m else None))
    return out


def parse_mark(b):
    """(kind, options) of a block's mark, or an error string."""
    if b.mark is None:
        return 'unmarked', None
    if b.mark.startswith('ambiguous:'):
        return 'bad', b.mark
    if b.mark.split()[:1] == ['skip']:
        reason = b.mark[4:].strip()
        if len(reason.split()) < 2:
            return 'bad', 'skip needs a reason of a few words'
        return 'skip', reason
    try:
        words = shlex.split(b.mark)
    except ValueError as e:
        return 'bad', 'mark does not parse: %s' % e
    if not words or words[0] not in ('run', 'skip'):
        return 'bad', 'mark must start with run or skip'
    opts = {'sub': [], 'append': [], 'omit': [], 'bg': False, 'stop': False}
    for w in words[1:]:
        if w in ('bg', 'stop'):
            opts[w] = True
        elif w.startswith('sub=') and '=>' in w:
            opts['sub'].append(tuple(w[4:].split('=>', 1)))
        elif w.startswith('omit=') and '=>' in w and \
                len(w.split('=>', 1)[1].split()) >= 2:
            opts['omit'].append(w[5:].split('=>', 1)[0])
        elif w.startswith('append='):
            opts['append'].append(w[7:])
        else:
            return 'bad', 'unknown option %r' % w
    return 'run', opts


def split_comment(line):
    """(command, trailing comment) of one shell line, quotes respected."""
    q = None
    for k, c in enumerate(line):
        if q:
            if c == q:
                q = None
            elif c == '\\' and q == '"':
                continue
        elif c in '\'"':
            q = c
        elif c == '#' and (k == 0 or line[k - 1] in ' \t'):
            return line[:k].rstrip(), line[k:]
    return line.rstrip(), ''


def commands(text):
    """The block's commands, continuation lines joined."""
    lines = text.split('\n')
    transcript = any(l.startswith('$ ') for l in lines)
    cmds, cur = [], None
    for l in lines:
        if cur is not None:
            cur += '\n' + l
        elif transcript:
            if not l.startswith('$ '):
                continue
            cur = l[2:]
        else:
            cur = l
        if cur.endswith('\\'):
            continue
        c, _ = split_comment(cur)
        if c.strip():
            cmds.append(c)
        cur = None
    if cur is not None:
        cmds.append(cur.rstrip('\\'))
    return cmds


def short_form(b, opts, tmp):
    text = b.text
    for old, new in opts['sub']:
        if old not in text:
            raise ValueError("sub='%s=>%s': %r is no longer in the block; "
                             "update the mark" % (old, new, old))
        text = text.replace(old, new)
    text = text.replace('/tmp/', tmp + '/')
    cmds = commands(text)
    for o in opts['omit']:
        n = len(cmds)
        cmds = [c for c in cmds if o not in c]
        if len(cmds) == n:
            raise ValueError("omit='%s=>...': no command holds %r; update "
                             "the mark" % (o, o))
    for a in opts['append']:
        n = 0
        for k, c in enumerate(cmds):
            if re.match(r'\s*(?:%s)\s' % '|'.join(SWITCHES), c):
                bg = c.endswith('&')
                cmds[k] = (c[:-1].rstrip() if bg else c) + ' ' + a + \
                    (' &' if bg else '')
                n += 1
        if n == 0:
            raise ValueError("append='%s': no ibex-switch, ibex-gen or "
                             "ibex-fabric command in the block" % a)
    return cmds


WRAP = r'''#!/usr/bin/env bash
# %(name)s of the build tree, with this run's file prefix
bin=%(bin)s
for a in "$@"; do
	case $a in %(own)s) exec "$bin" "$@";; esac
done
%(body)s
'''


def make_bin(build, bindir):
    os.makedirs(bindir)
    progs = {n: os.path.join(build, 'app', n, n) for n in
             ('ibex-switch', 'ibex-gen', 'ibex-fabric', 'ibex-ctl',
              'ibex-pcapgen', 'ibex-topo')}
    for n, path in progs.items():
        if not os.access(path, os.X_OK):
            raise SystemExit('doc_commands: %s not built' % path)
        if n in SWITCHES:
            # ibex-fabric --check runs no EAL and takes no EAL arguments
            own = '--file-prefix*|--help|-h|--version|-V' + \
                ('|--check' if n == 'ibex-fabric' else '')
            body = 'exec "$bin" --file-prefix="$IBEX_DOC_PREFIX" "$@"'
        elif n == 'ibex-ctl':
            own = '-s|--socket*|-f|--file-prefix*|--help|-h|--version|-V'
            body = 'exec "$bin" --file-prefix "$IBEX_DOC_PREFIX" "$@"'
        else:
            own = '*'
            body = ''
        with open(os.path.join(bindir, n), 'w') as f:
            f.write(WRAP % {'name': n, 'bin': shlex.quote(path), 'own': own,
                            'body': body})
        os.chmod(os.path.join(bindir, n), 0o755)


def check_output(out):
    """Problems the output reports: loss, failed iterations, errors."""
    bad = []
    for m in re.finditer(r'\blost (\d+)', out):
        if int(m.group(1)) > 0:
            bad.append('loss: ' + line_of(out, m.start()))
    for m in re.finditer(r'frames: tx (\d+) rx (\d+)', out):
        if int(m.group(2)) < int(m.group(1)):
            bad.append('fewer frames received than sent: ' +
                       line_of(out, m.start()))
    for m in re.finditer(r'Out of bounds values : (\d+) FAILED', out):
        if int(m.group(1)) > 0:
            bad.append('failed sizes: ' + line_of(out, m.start()))
    if shutil.which('gnuplot'):
        for m in re.finditer(r'gnuplot not found', out):
            bad.append('gnuplot is installed: ' + line_of(out, m.start()))
    for r in ERROR_RES:
        for m in r.finditer(out):
            l = line_of(out, m.start())
            if ' 0 FAILED' not in l:
                bad.append('error line: ' + l)
    return bad


def line_of(s, pos):
    a = s.rfind('\n', 0, pos) + 1
    b = s.find('\n', pos)
    return s[a:b if b >= 0 else len(s)].strip()


BG_SCRIPT = r'''
( %(first)s ) >"$IBEX_DOC_WORK/bg.log" 2>&1 &
bg=$!
trap 'kill -TERM $bg 2>/dev/null && { wait $bg; cat "$IBEX_DOC_WORK/bg.log"; }' EXIT
# Ready: a line after the last "listening on" (a fabric's switches open
# their sockets in one burst, then it goes on), polled up to 120 s.
ready() { awk '/listening on/ { l = NR } END { exit !(l && NR > l) }' "$IBEX_DOC_WORK/bg.log"; }
for ((i = 0; i < 1200; i++)); do
	ready && break
	kill -0 $bg 2>/dev/null || break
	sleep 0.1
done
ready || {
	echo "doc_commands: the first command never listened"; cat "$IBEX_DOC_WORK/bg.log"; exit 1; }
%(rest)s
%(stop)s
rc=0; wait $bg || rc=$?
cat "$IBEX_DOC_WORK/bg.log"
exit $rc
'''


def run_block(b, opts, src, build, n):
    work = tempfile.mkdtemp(prefix='ibex-doc.')
    prefix = 'ibexdoc%d_%d' % (os.getpid(), n)
    try:
        tmp = os.path.join(work, 'tmp')
        os.makedirs(tmp)
        for e in os.listdir(src):
            if e.startswith('.') or e.startswith('build'):
                continue
            os.symlink(os.path.join(src, e), os.path.join(work, e))
        os.symlink(build, os.path.join(work, 'build'))
        make_bin(build, os.path.join(work, '.bin'))
        try:
            cmds = short_form(b, opts, tmp)
        except ValueError as e:
            return ['%s' % e], ''
        if opts['bg']:
            first = cmds[0][:-1].rstrip() if cmds[0].endswith('&') \
                else cmds[0]
            script = BG_SCRIPT % {'first': 'exec ' + first,
                                  'rest': '\n'.join(cmds[1:]),
                                  'stop': 'kill -TERM $bg' if opts['stop']
                                  else ''}
        else:
            script = '\n'.join(cmds) + '\n'
        script = 'set -eo pipefail\n' + script
        env = dict(os.environ)
        env['PATH'] = os.path.join(work, '.bin') + ':' + env['PATH']
        env['IBEX_DOC_PREFIX'] = prefix
        env['IBEX_DOC_WORK'] = work
        env['IBEX_DEPS_NO_INSTALL'] = '1'   # tests/deps.sh: never apt-get
        env['IBEX_DEMO_OUT'] = os.path.join(tmp, 'ibex-demo')  # not /tmp's
        print('--- %s: %s' % (b.where(), 'bg; ' if opts['bg'] else ''))
        print('\n'.join('  $ ' + c for c in cmds), flush=True)
        t0 = time.monotonic()
        p = subprocess.Popen(['bash', '-c', script], cwd=work, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, start_new_session=True)
        try:
            out, _ = p.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGTERM)
            try:
                out, _ = p.communicate(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                out, _ = p.communicate()
            return ['still running after %.0f s' % TIMEOUT], out
        dt = time.monotonic() - t0
        try:    # anything the block left running
            os.killpg(p.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        bad = check_output(out)
        if p.returncode != 0:
            bad.insert(0, 'exit status %d' % p.returncode)
        if os.environ.get('DOC_CMD_VERBOSE'):
            print(out)
        print('    %.1f s, exit %d' % (dt, p.returncode), flush=True)
        return bad, out
    finally:
        shutil.rmtree(work, ignore_errors=True)
        # EAL's run directory of this block's prefix, for root or not
        for d in ('/var/run/dpdk', os.path.join(
                os.environ.get('XDG_RUNTIME_DIR', '/nonexistent'), 'dpdk')):
            shutil.rmtree(os.path.join(d, prefix), ignore_errors=True)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    src = os.path.realpath(sys.argv[1])
    build = os.path.realpath(sys.argv[2])
    only = sys.argv[3:]
    docs = ['README.md'] + sorted('docs/' + f for f in
                                  os.listdir(os.path.join(src, 'docs'))
                                  if f.endswith('.md'))
    failures, ran, skipped = [], 0, 0
    need_help = False
    n = 0
    mans = sorted('docs/man/' + f for f in
                  os.listdir(os.path.join(src, 'docs', 'man'))
                  if f.endswith('.md'))
    marks = read_man_marks(src)
    for doc in docs + mans:
        found = blocks(src, doc) if doc in docs else \
            man_blocks(src, doc, marks)
        for b in found:
            if only and doc not in only and b.where() not in only:
                continue
            n += 1
            kind, opts = parse_mark(b)
            if kind == 'unmarked':
                failures.append('%s: a code block with an ibex command has '
                                'no test mark (see below)' % b.where())
                need_help = True
                continue
            if kind == 'bad':
                failures.append('%s: %s (see below)' % (b.where(), opts))
                need_help = True
                continue
            if kind == 'skip':
                skipped += 1
                print('--- %s: skipped: %s' % (b.where(), opts))
                continue
            ran += 1
            bad, out = run_block(b, opts, src, build, n)
            if bad:
                failures.append('%s:\n  %s\n----- output -----\n%s'
                                '----- end -----' % (b.where(),
                                                     '\n  '.join(bad),
                                                     out[-6000:]))
    if n == 0:
        failures.append('no code block with an ibex command found')
    print('doc_commands: %d blocks run, %d skipped with a reason, %d '
          'failed' % (ran, skipped, len(failures)), flush=True)
    for f in failures:
        print('FAIL: ' + f, file=sys.stderr)
    if need_help:
        print(MARK_HELP, file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == '__main__':
    main()
