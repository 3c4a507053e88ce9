"""The report inlines Vega's JavaScript; it is assembled once per vl-convert / Vega-Lite version."""

from __future__ import annotations

import pytest
import vl_convert

from warehouse import report


def test_the_vega_bundle_is_assembled_once_per_version(tmp_path, monkeypatch):
    vl_convert_version = vl_convert.__version__
    first = report._vega_bundle(tmp_path)
    (cached,) = tmp_path.glob("vega-bundle-*.js")
    assert cached.name.startswith(f"vega-bundle-{vl_convert.__version__}-")
    assert cached.read_text(encoding="utf-8") == first
    assert "vegaEmbed" in first  # the function the page calls to draw its charts

    def assemble_again(**_):
        raise AssertionError("assembled again")

    monkeypatch.setattr(vl_convert, "javascript_bundle", assemble_again)
    assert report._vega_bundle(tmp_path) == first  # read from the cache, not assembled
    # another vl-convert version does not take the cached bundle of this one
    monkeypatch.setattr(vl_convert, "__version__", "0.0.0")
    with pytest.raises(AssertionError, match="assembled again"):
        report._vega_bundle(tmp_path)
    # assembled for the new version, it replaces the old version's bundle in the cache
    monkeypatch.setattr(vl_convert, "javascript_bundle", lambda **_: "new bundle")
    assert report._vega_bundle(tmp_path) == "new bundle"
    assert [p.name for p in tmp_path.glob("vega-bundle-*.js")] == [
        cached.name.replace(f"-{vl_convert_version}-", "-0.0.0-")
    ]
