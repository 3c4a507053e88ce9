"""The generic table extractor and locale-aware number parsing."""

from __future__ import annotations

import pytest

from sources._internal.parsing import parse_locale_number, parse_money, parse_quantity
from sources._internal.records import ParseError
from sources._internal.tables import classify_header, extract_tables, find_tables


@pytest.mark.parametrize(
    ("text", "locale", "expected"),
    [
        ("$4.78", "en", (4.78, "USD")),
        ("0,44 $", "de", (0.44, "USD")),
        ("ab 2,88 $", "de", (2.88, "USD")),
        ("€2.50/hr", "en", (2.5, "EUR")),
        ("2,50 € pro Stunde", "de", (2.5, "EUR")),
        ("USD 1,234.50", "en", (1234.5, "USD")),
        ("from $0.24", "en", (0.24, "USD")),
    ],
)
def test_money(text, locale, expected):
    assert parse_money(text, locale) == expected


@pytest.mark.parametrize(
    ("text", "locale", "expected"),
    [
        ("1.008 GB/s", "de", 1008.0),
        ("3.350 GB/s", "de", 3350.0),
        ("80GB", "en", 80.0),
        ("733 TFLOPS", "de", 733.0),
        ("1.979 TFLOPS", "de", 1979.0),
        ("2,048", "en", 2048.0),
        ("1.234,5", "en", 1234.5),
        ("4.78", "en", 4.78),
    ],
)
def test_quantities(text, locale, expected):
    assert parse_quantity(text, locale) == expected


@pytest.mark.parametrize("text", ["N/A", "Contact sales", ""])
def test_no_number_is_an_error(text):
    with pytest.raises(ValueError):
        parse_locale_number(text)


def test_money_without_currency_is_an_error():
    with pytest.raises(ValueError, match="no currency"):
        parse_money("4.78")
    assert parse_money("4.78", default_currency="USD") == (4.78, "USD")


@pytest.mark.parametrize(
    ("header", "meaning"),
    [
        ("Cost per Hour", "price"),
        ("Preis/Std.", "price"),
        ("Price per hour", "price"),
        ("VRAM", "memory"),
        ("Speicher", "memory"),
        ("Bandbreite", "bandwidth"),
        ("FP8-Tensor", "fp8_tflops"),
        ("Resource Label", "offer"),
        ("Label", "offer"),
        ("Type", "kind"),
        ("Description", "gpu"),
        ("GPU", "gpu"),
        ("Class", "gpu"),
        ("GPUs", "count"),
        ("Anzahl GPUs", "count"),
        ("Pricing model", "pricing_model"),
        ("CPU Type", None),
        ("Max RAM per vCPU", None),
        ("Node type", None),
    ],
)
def test_header_meanings_in_english_and_german(header, meaning):
    assert classify_header(header) == meaning


MARKDOWN = """# Prices

| GPU | Speicher | Preis/Std. |
|---|---|---|
| H100 SXM | 80 GB | ab 2,88 $ |

<table><thead><tr><th>Description</th><th>Cost per hour</th></tr></thead>
<tbody><tr><td>A40</td><td>$1.28</td></tr></tbody></table>
"""


def test_markdown_and_embedded_html_tables_both_come_out():
    tables = extract_tables(MARKDOWN.encode(), "page.md")
    assert [(t.headers, t.rows, t.locale) for t in tables] == [
        (["GPU", "Speicher", "Preis/Std."], [["H100 SXM", "80 GB", "ab 2,88 $"]], "de"),
        (["Description", "Cost per hour"], [["A40", "$1.28"]], "en"),
    ]


def test_a_page_without_a_price_table_names_the_page_and_what_it_found():
    tables = extract_tables(b"| CPU | Cores |\n|---|---|\n| Epyc | 64 |\n", "https://p.example/x")
    with pytest.raises(ParseError) as err:
        find_tables(tables, "https://p.example/x", ("gpu", "price"))
    assert "https://p.example/x" in str(err.value)
    assert "['CPU', 'Cores']" in str(err.value)
    with pytest.raises(ParseError, match="no tables at all"):
        find_tables(extract_tables(b"<p>moved</p>", "u"), "u", ("gpu", "price"))


def test_text_capture_that_glued_a_short_delimiter_table_to_a_list_is_repaired():
    # as in the real capture seeds/002: no blank line before the table, "|---|" under 3 headers
    page = (
        "- AWS Inferentia2: inference only\nAm einfachsten:\n"
        "| Modell | Input (1M Token) | Output (1M Token) |\n|---|\n"
        "| GPT-4o | ~2,50 € | ~10,00 € |\nSelf-Hosted\n"
    )
    (table,) = extract_tables(page.encode(), "seed")
    assert table.meanings == ["gpu", "input_price", "output_price"]
    assert table.rows == [["GPT-4o", "~2,50 €", "~10,00 €"]]
