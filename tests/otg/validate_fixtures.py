#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Validate the OTG fixtures against ibex's OTG subset schema.

Every tests/otg/fixtures/*.json is a Config (the body of PUT /config)
and is checked against the schema's root. Runs by hand, or as the
system test otg_fixtures (no network):

    python3 tests/otg/validate_fixtures.py [FIXTURE.json ...]

Needs python3-jsonschema (Debian 12: 4.10, which knows draft 2020-12).
Exit status 0 when every file validates, 1 otherwise.
"""

import glob
import json
import os
import sys

try:
    import jsonschema
except ImportError:
    sys.exit("validate_fixtures: needs python3-jsonschema "
             "(apt-get install python3-jsonschema)")

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA = os.path.join(HERE, "otg_subset.schema.json")


def version():
    try:
        from importlib.metadata import version as v
        return v("jsonschema")
    except Exception:  # an old python or an unpackaged module
        return "?"


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def main(argv):
    schema = load(SCHEMA)
    cls = jsonschema.Draft202012Validator
    cls.check_schema(schema)
    validator = cls(schema)

    files = argv[1:] or sorted(glob.glob(os.path.join(HERE, "fixtures",
                                                      "*.json")))
    if not files:
        print("validate_fixtures: no fixtures found", file=sys.stderr)
        return 1

    failed = 0
    for path in files:
        name = os.path.relpath(path, HERE)
        try:
            doc = load(path)
        except (OSError, ValueError) as e:
            print(f"FAIL {name}: {e}")
            failed += 1
            continue
        errors = sorted(validator.iter_errors(doc),
                        key=lambda e: list(e.absolute_path))
        if errors:
            failed += 1
            print(f"FAIL {name}: {len(errors)} error(s)")
            for e in errors[:20]:
                where = "/".join(str(p) for p in e.absolute_path) or "(root)"
                print(f"  at {where}: {e.message}")
        else:
            print(f"ok   {name}")
    print(f"{len(files) - failed}/{len(files)} valid "
          f"(jsonschema {version()}, "
          f"{cls.__name__})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
