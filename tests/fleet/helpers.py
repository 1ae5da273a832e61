"""The fleet schema, with the single-host schema it refers to, as one validator."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
from referencing import Registry, Resource

from crashdoc.report.fleet import schema_text as fleet_schema_text
from crashdoc.report.json import schema_text as diagnosis_schema_text


def validator() -> jsonschema.Draft202012Validator:
    """A validator for crashdoc.fleet/1 that resolves its references to crashdoc.diagnosis/1."""
    fleet = json.loads(fleet_schema_text())
    diagnosis = json.loads(diagnosis_schema_text())
    registry: Registry[Any] = Registry().with_resources(
        (s["$id"], Resource.from_contents(s)) for s in (fleet, diagnosis)
    )
    jsonschema.Draft202012Validator.check_schema(fleet)
    return jsonschema.Draft202012Validator(fleet, registry=registry)


def validate(report: dict[str, Any]) -> None:
    """Raise jsonschema.ValidationError unless `report` follows crashdoc.fleet/1."""
    validator().validate(report)
