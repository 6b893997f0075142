#!/usr/bin/env python3
"""Validates a ZRC JSON file against its schema in Schemas/.

Usage: Tools/validate-json.py SCHEMA_NAME FILE   (e.g. known-hosts FILE)
Exit 0 when valid; 1 with the violations on stderr otherwise. Used by the test suite to prove
that what ZRC writes matches the published schemas, and handy for checking a hand-edited file.
"""
import json
import pathlib
import sys

import jsonschema

schemas_dir = pathlib.Path(__file__).resolve().parent.parent / "Schemas"
store = {}
for path in schemas_dir.glob("*.schema.json"):
    schema = json.loads(path.read_text())
    store[schema["$id"]] = schema
    store[path.name] = schema

name, document_path = sys.argv[1], sys.argv[2]
schema = json.loads((schemas_dir / f"{name}.schema.json").read_text())
resolver = jsonschema.RefResolver(base_uri=schema["$id"], referrer=schema, store=store)
validator = jsonschema.Draft202012Validator(schema, resolver=resolver,
                                            format_checker=jsonschema.FormatChecker())
document = json.loads(pathlib.Path(document_path).read_text())
errors = sorted(validator.iter_errors(document), key=lambda e: list(e.path))
for error in errors:
    location = "/".join(str(p) for p in error.path) or "(top level)"
    print(f"{document_path}: {location}: {error.message}", file=sys.stderr)
sys.exit(1 if errors else 0)
