"""The dbt project keeps jaffle-shop's habits: every model has a YAML entry with a description and
a test of its grain, and the copied classes join stays one intermediate model."""

from __future__ import annotations

from pathlib import Path

import yaml

MODELS = Path(__file__).parents[2] / "dbt" / "models"


def entries() -> dict[str, dict]:
    found = {}
    for path in MODELS.glob("**/_*.yml"):
        for model in yaml.safe_load(path.read_text()).get("models") or []:
            found[model["name"]] = model
    return found


def grain(model: dict) -> list[str] | None:
    """The columns a model's grain test holds unique, or None when it has none. A primary key of
    an enforced contract counts: DuckDB holds it unique (and not null) on every write."""
    if (model.get("config") or {}).get("contract", {}).get("enforced"):
        for constraint in model.get("constraints") or []:
            if constraint["type"] == "primary_key":
                return constraint["columns"]
    for test in model.get("data_tests") or []:
        if isinstance(test, dict) and "unique_columns" in test:
            return test["unique_columns"]["arguments"]["columns"]
    for column in model.get("columns") or []:
        for test in column.get("data_tests") or []:
            # `unique`, or `unique:` with its config
            if test == "unique" or (isinstance(test, dict) and "unique" in test):
                return [column["name"]]
    return None


def test_every_model_has_an_entry_a_description_and_a_grain_test():
    sql = sorted(p.stem for p in MODELS.glob("**/*.sql"))
    documented = entries()
    assert len(sql) == 56
    assert [m for m in sql if m not in documented] == []
    assert [m for m in sql if not (documented[m].get("description") or "").strip()] == []
    # a table macro holds no rows for a data test to read: rank_workload's grain (one row per
    # option_key) is held by tests/integration/test_rank_workload.py on every call it makes
    macros = sorted(
        p.stem for p in MODELS.glob("**/*.sql") if "materialized='table_macro'" in p.read_text()
    )
    assert macros == ["rank_workload"]
    assert [m for m in sql if m not in macros and grain(documented[m]) is None] == []
    assert grain(documented["fct_coverage_daily"]) == ["day"]
    assert grain(documented["fct_workload_costs_daily"]) == ["day", "workload_class", "option_key"]
    assert grain(documented["fct_workload_cost_inputs_daily"]) == [
        "day", "workload_class", "option_key",
    ]  # fmt: skip
    assert grain(documented["fct_throughput_evidence"]) == [
        "workload_class",
        "gpu_id",
        "evidence_from",
    ]


def test_classes_are_joined_to_their_models_in_one_place():
    joined = [p.stem for p in MODELS.glob("**/*.sql") if "ref('model_reference')" in p.read_text()]
    # (and the benchmark runs' model names to theirs in one place)
    # (and an analyst's own workload to its model, in the table macro that ranks it)
    assert sorted(joined) == [
        "int_benchmark_models_resolved",
        "int_model_api_prices_daily",
        "int_workload_classes_joined",
        "rank_workload",
    ]
