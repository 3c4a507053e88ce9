"""The project's generic data tests, run on DuckDB tables built here: they fail on exactly the
rows they are meant to find."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import jinja2
import pytest

GENERIC = Path(__file__).parents[2] / "dbt" / "tests" / "generic"


def _render(name: str, **kwargs) -> str:
    """The body of `{% test name(...) %}` rendered as dbt renders it for a model."""
    text = (GENERIC / f"{name}.sql").read_text(encoding="utf-8")
    body = re.search(r"{%\s*test\s+" + name + r"\(.*?\)\s*%}(.*?){%\s*endtest\s*%}", text, re.S)
    assert body, f"no test {name} in {GENERIC / f'{name}.sql'}"
    return jinja2.Environment().from_string(body.group(1)).render(**kwargs)


def _plain(table: str, columns: list[str]) -> str:
    cols = ", ".join(columns)
    return f"select {cols}, count(*) as n from {table} group by {cols} having count(*) > 1"


@pytest.fixture
def con():
    con = duckdb.connect()
    # 100,000 distinct keys (source, url, fetched_at, row_index), as raw price observations
    con.execute(
        """create table obs as
           select 'src' || (i % 7) as source, 'https://p/' || (i % 1000) as snapshot_url,
                  timestamptz '2026-08-01 00:00:00+00' + to_seconds(i // 1000) as fetched_at,
                  i as row_index, random() as price
           from range(100000) t(i)"""
    )
    yield con
    con.close()


COLUMNS = ["source", "snapshot_url", "fetched_at", "row_index"]


def test_unique_columns_passes_distinct_keys(con):
    assert con.execute(_render("unique_columns", model="obs", columns=COLUMNS)).fetchall() == []


def test_unique_columns_finds_every_repeated_key_and_its_count(con):
    con.execute("insert into obs select * from obs where row_index in (5, 77777)")  # twice
    con.execute("insert into obs select * from obs where row_index = 5")  # and a third time
    # a key with a NULL: GROUP BY counts NULLs as equal, so two such rows are a repeat too
    con.execute(
        "insert into obs values ('src1', null, timestamptz '2026-08-02 00:00:00+00', -1, 1.0),"
        " ('src1', null, timestamptz '2026-08-02 00:00:00+00', -1, 2.0)"
    )
    found = sorted(
        con.execute(_render("unique_columns", model="obs", columns=COLUMNS)).fetchall(),
        key=lambda r: r[3],
    )
    assert found == sorted(con.execute(_plain("obs", COLUMNS)).fetchall(), key=lambda r: r[3])
    assert [(r[3], r[4]) for r in found] == [(-1, 2), (5, 4), (77777, 2)]


def test_unique_columns_reads_a_filtered_model_as_dbt_hands_it_over(con):
    """With a `where` config dbt passes `(select * from model where ...) dbt_subquery`."""
    con.execute("insert into obs select * from obs where row_index in (5, 99999)")
    model = "(select * from obs where row_index > 50000) dbt_subquery"
    found = con.execute(_render("unique_columns", model=model, columns=COLUMNS)).fetchall()
    assert [(r[3], r[4]) for r in found] == [(99999, 2)]


SINGULAR = GENERIC.parent


def test_the_context_window_test_finds_exactly_the_classes_longer_than_their_model():
    """dbt/tests/workload_classes_fit_their_models_context.sql on the real seeds passes, and on
    the seeds with one chat class lengthened past its model's context (and one training class's
    samples past theirs) returns exactly those two."""
    seeds = Path(__file__).parents[2] / "dbt" / "seeds"
    sql = (SINGULAR / "workload_classes_fit_their_models_context.sql").read_text("utf-8")
    sql = re.sub(r"{{\s*ref\('(\w+)'\)\s*}}", r"\1", sql)
    con = duckdb.connect()
    types = {  # the seeds' column_types (dbt/seeds/_seeds.yml)
        "workload_classes": "{'input_len': 'double', 'output_len': 'double', "
        "'tokens_per_output': 'double'}",
        "model_reference": "{'max_context_tokens': 'integer'}",
    }
    for name, columns in types.items():
        con.execute(
            f"create table {name} as select * from read_csv(?, header = true, types = {columns})",
            [str(seeds / f"{name}.csv")],
        )
    assert con.execute(sql).fetchall() == []
    # chat-13-34b (Qwen2.5 32B Instruct, 32,768 tokens): 1,024 + 256 -> 32,513 + 256
    con.execute(
        "update workload_classes set input_len = 32513 where workload_class = 'chat-13-34b'"
    )
    con.execute(
        "update workload_classes set tokens_per_output = 131073 "
        "where workload_class = 'lora-finetune-8b'"
    )
    assert sorted(con.execute(sql).fetchall()) == [
        ("chat-13-34b", "qwen2.5-32b", 32769.0, 32768),
        ("lora-finetune-8b", "llama-3.1-8b", 131073.0, 131072),
    ]
